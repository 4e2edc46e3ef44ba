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
	"github.com/gauntlet-bench/gauntlet/internal/engine"
)

type published struct {
	Seeds []seed `json:"seeds"`
}

type seed struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Setup string   `json:"setup"`
	Docs  []string `json:"docs"`
	// Tables are every table the article publishes, transcribed as printed.
	Tables []table `json:"tables"`
	// Inconsistencies are places where the article contradicts itself: stated, not resolved.
	Inconsistencies []string `json:"inconsistencies,omitempty"`
	// Differences are every way the sample differs from the article's setup.
	Differences []string `json:"differences"`
	Claims      []claim  `json:"claims"`
}

type table struct {
	Caption string     `json:"caption"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// claim is one thing a reader would remember from the article: checked (Check, read as
// Reading says) or, with NotCheckable, why this repository cannot check it.
type claim struct {
	Text         string `json:"text"`
	Reading      string `json:"reading,omitempty"`
	Check        *check `json:"check,omitempty"`
	NotCheckable string `json:"notCheckable,omitempty"`
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
	for _, s := range p.Seeds {
		for i, c := range s.Claims {
			if (c.Check == nil) == (c.NotCheckable == "") {
				return fmt.Errorf("%s: seed %s claims[%d] (%q): give either check (with reading) or notCheckable", data, s.ID, i, c.Text)
			}
			if c.Check != nil && c.Reading == "" {
				return fmt.Errorf("%s: seed %s claims[%d] (%q): a check needs its reading: how the claim is read, threshold included", data, s.ID, i, c.Text)
			}
		}
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
	page := render(p, runs, in, strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(machine)), "\n", "; ")), " "))
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
	// The rows are tallied again from the trials, as the engine tallies them today: a status
	// recorded by an older version keeps its flags' old meanings (before GeneratorLimited, a
	// closed model's busy k6 made every rate a lower bound).
	engine.Tally(&br, nil)
	cmd, _ := os.ReadFile(filepath.Join(dir, "command.txt"))
	return &run{BR: &br, Command: strings.TrimSpace(string(cmd))}, nil
}
