package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Run is one run of the history.
type Run struct {
	Name string `json:"name"`
	// Source is the file it was read from.
	Source string `json:"source"`
	// Time orders the history: status.startedAt, else finishedAt, else the object's
	// creation time.
	Time time.Time             `json:"time"`
	Run  *benchv1.BenchmarkRun `json:"-"`
	// Rows are the run's figures when Run is nil: a run kept only as its figures (a
	// BenchmarkSchedule's history, after the run itself was deleted).
	Rows []Row `json:"-"`
}

// rows is the run's figures of record, by row.
func (r Run) rows() map[Key]map[string]float64 {
	if r.Run != nil {
		return figures(r.Run)
	}
	out := make(map[Key]map[string]float64, len(r.Rows))
	for _, row := range r.Rows {
		out[row.Key] = row.Values
	}
	return out
}

// statusFile is the file `run --local` writes in each results folder (report.StatusFile).
const statusFile = "status.yaml"

// Load reads every BenchmarkRun under dir: YAML or JSON files holding one run, several
// documents, or a List (`kubectl get benchmarkruns -o yaml`). Other files are skipped,
// except that a status.yaml must be a BenchmarkRun. The runs come back oldest first; the
// same run found twice (a results folder and its export) counts once. An unreadable or
// malformed run file is an error naming it.
func Load(dir string) ([]Run, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a folder", dir)
	}
	var runs []Run
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(path))
		if d.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			return nil
		}
		found, err := readFile(path, d.Name() == statusFile)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		runs = append(runs, found...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
	return dedupe(runs), nil
}

// probe is what a document must declare to be read as a run or a list of runs.
type probe struct {
	Kind  string            `json:"kind"`
	Items []json.RawMessage `json:"items"`
}

func readFile(path string, mustBeRun bool) ([]Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var runs []Run
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var p probe
		if err := yaml.Unmarshal(raw, &p); err != nil {
			if mustBeRun {
				return nil, err
			}
			return nil, nil // not an object: results.json, some other file
		}
		switch {
		case p.Kind == "BenchmarkRun":
			r, err := parseRun(raw, path)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", doc, err)
			}
			runs = append(runs, r)
		case strings.HasSuffix(p.Kind, "List"):
			for i, item := range p.Items {
				var ip probe
				if yaml.Unmarshal(item, &ip) != nil || ip.Kind != "BenchmarkRun" {
					continue // a list may hold other kinds
				}
				r, err := parseRun(item, path)
				if err != nil {
					return nil, fmt.Errorf("document %d, items[%d]: %w", doc, i, err)
				}
				runs = append(runs, r)
			}
		case mustBeRun:
			return nil, fmt.Errorf("kind %q: a %s must be a BenchmarkRun", p.Kind, statusFile)
		}
	}
	return runs, nil
}

func parseRun(raw []byte, path string) (Run, error) {
	br := &benchv1.BenchmarkRun{}
	if err := yaml.UnmarshalStrict(raw, br); err != nil {
		return Run{}, err
	}
	r := Run{Name: br.Name, Source: path, Run: br}
	switch {
	case br.Status.StartedAt != nil:
		r.Time = br.Status.StartedAt.Time
	case br.Status.FinishedAt != nil:
		r.Time = br.Status.FinishedAt.Time
	case !br.CreationTimestamp.IsZero():
		r.Time = br.CreationTimestamp.Time
	default:
		return Run{}, fmt.Errorf("run %q has no status.startedAt, status.finishedAt or metadata.creationTimestamp to order it by", br.Name)
	}
	return r, nil
}

// dedupe keeps the first of runs with the same namespace, name and start.
func dedupe(runs []Run) []Run {
	seen := map[string]bool{}
	out := runs[:0]
	for _, r := range runs {
		k := r.Run.Namespace + "/" + r.Name + "@" + r.Time.UTC().Format(time.RFC3339Nano)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out
}

// Named keeps the runs of one benchmark: those named name (the local mode names a run after
// its document) or created by the BenchmarkSchedule of that name.
func Named(runs []Run, name string) []Run {
	var out []Run
	for _, r := range runs {
		if r.Name == name || (r.Run != nil && r.Run.Labels[benchv1.LabelSchedule] == name) {
			out = append(out, r)
		}
	}
	return out
}
