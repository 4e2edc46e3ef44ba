package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/report"
)

// ReadRun reads a BenchmarkRun with its status from a results folder (its status.yaml) or
// from a status.yaml file; it returns the file read.
func ReadRun(path string) (*benchv1.BenchmarkRun, string, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, "", err
	} else if st.IsDir() {
		file = filepath.Join(path, report.StatusFile)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", err
	}
	run := &benchv1.BenchmarkRun{}
	if err := yaml.UnmarshalStrict(data, run); err != nil {
		return nil, "", fmt.Errorf("%s: %w", file, err)
	}
	if run.Kind != "BenchmarkRun" || run.Status.Trials == nil {
		return nil, "", fmt.Errorf("%s: not a BenchmarkRun with trials in its status", file)
	}
	return run, file, nil
}

// FindBaseline is the newest finished results folder of the run named name under root (the
// folder results folders are made in), other than exclude: what spec.baseline.run names
// in the local mode.
func FindBaseline(root, name, exclude string) (string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	best, bestAt := "", ""
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), name+"-") || sameDir(dir, exclude) {
			continue
		}
		run, _, err := ReadRun(dir)
		if err != nil || run.Name != name || run.Status.FinishedAt == nil {
			continue
		}
		if at := run.Status.FinishedAt.UTC().Format("2006-01-02T15:04:05.000000000"); at > bestAt {
			best, bestAt = dir, at
		}
	}
	if best == "" {
		return "", fmt.Errorf("spec.baseline.run: no finished results folder of run %q (%s-*/%s) in %s", name, name, report.StatusFile, root)
	}
	return best, nil
}

func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// baseline is the run a local run is compared with, read before the run starts.
type baseline struct {
	run    *benchv1.BenchmarkRun
	source string
	err    error // why there is none, for Regressed Unknown
}

// loadBaseline reads --baseline (path) or, without it, spec.baseline.run's newest results
// folder next to outDir. A --baseline that cannot be read is an error: the user named it.
func loadBaseline(run *benchv1.BenchmarkRun, path, outDir string) (*baseline, error) {
	if path != "" {
		b, file, err := ReadRun(path)
		if err != nil {
			return nil, fmt.Errorf("--baseline: %w", err)
		}
		return &baseline{run: b, source: file}, nil
	}
	if run.Spec.Baseline == nil || run.Spec.Baseline.Run == "" {
		return nil, nil // nothing but same-run pairs, if any
	}
	dir, err := FindBaseline(filepath.Dir(filepath.Clean(outDir)), run.Spec.Baseline.Run, outDir)
	if err != nil {
		return &baseline{err: err}, nil
	}
	b, file, err := ReadRun(dir)
	return &baseline{run: b, source: file, err: err}, nil
}

// apply judges the finished run (internal/engine.Compare): its same-run pairs, and the
// baseline run read before it started, or why there is none.
func (b *baseline) apply(run *benchv1.BenchmarkRun, notify engine.Notify) {
	switch {
	case b == nil:
		engine.Compare(run, nil, "", "", notify)
	case b.err != nil:
		engine.Compare(run, nil, "", b.err.Error(), notify)
	case b.run.Status.FinishedAt == nil:
		engine.Compare(run, nil, "", fmt.Sprintf("the baseline %s never finished", b.source), notify)
	default:
		engine.Compare(run, b.run, b.source, "", notify)
	}
}
