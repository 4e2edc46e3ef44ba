// Command reproductions writes docs/reproductions.md: for each seed, what it published beside
// Gauntlet's run of its sample on this machine, and for each finding whether the run
// reproduced it. The runs come from `make reproductions`, which runs the samples tier
// (test/local TestSamples) with GAUNTLET_SAMPLES_OUT set; nothing here is measured by hand.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

type published struct {
	Seeds []seed `json:"seeds"`
}

type seed struct {
	ID       string     `json:"id"`
	Title    string     `json:"title"`
	Setup    string     `json:"setup"`
	Docs     []string   `json:"docs"`
	Columns  []string   `json:"columns"`
	Rows     [][]string `json:"rows"`
	Findings []finding  `json:"findings"`
}

type finding struct {
	Text  string `json:"text"`
	Check check  `json:"check"`
}

// run is one sample document's results as the samples tier left them.
type run struct {
	BR      *benchv1.BenchmarkRun
	Command string
}

func main() {
	in := flag.String("in", ".cache/reproductions", "folder with <document>/status.yaml and command.txt")
	data := flag.String("published", "hack/reproductions/published.yaml", "the seeds' published figures and findings")
	out := flag.String("out", "docs/reproductions.md", "the page to write")
	flag.Parse()
	if err := generate(*in, *data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "reproductions:", err)
		os.Exit(1)
	}
}

func generate(in, data, out string) error {
	raw, err := os.ReadFile(data)
	if err != nil {
		return err
	}
	var p published
	if err := yaml.UnmarshalStrict(raw, &p); err != nil {
		return fmt.Errorf("%s: %w", data, err)
	}
	runs := map[string]*run{}
	for _, s := range p.Seeds {
		for _, d := range s.Docs {
			r, err := readRun(filepath.Join(in, d))
			if err != nil {
				fmt.Fprintf(os.Stderr, "reproductions: %s: %v (shown as not run)\n", d, err)
				continue
			}
			runs[d] = r
		}
	}
	machine, _ := os.ReadFile(filepath.Join(in, "machine.txt")) // written by make reproductions
	page := render(p, runs, strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(machine)), "\n", "; ")), " "))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, []byte(page), 0o644)
}

func readRun(dir string) (*run, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "status.yaml"))
	if err != nil {
		return nil, err
	}
	var br benchv1.BenchmarkRun
	if err := yaml.Unmarshal(raw, &br); err != nil {
		return nil, err
	}
	cmd, _ := os.ReadFile(filepath.Join(dir, "command.txt"))
	return &run{BR: &br, Command: strings.TrimSpace(string(cmd))}, nil
}
