// Package enginetest holds the corpus both modes' tests feed through the engine: runs
// recorded by the local mode (hack/reproductions/testdata/last-run), stripped of what the
// engine decides, and the decision each mode must reach, committed under
// internal/engine/testdata/corpus. The operator's test and the local mode's test compare
// their adapter's decision with the same file, so the two modes agree on every case.
package enginetest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Cases are the corpus: recorded runs with valid rows, with none, with one, and one whose
// SLO is tightened below what was measured (its rows miss it).
var Cases = []string{"seed-000-smart-home", "seed-001-keepalive-off", "seed-001-pgbouncer-transaction", "seed-004-50k-rps",
	"seed-000-smart-home+tight-slo"}

// variants change a recorded run's spec before it is decided.
var variants = map[string]func(*benchv1.BenchmarkRun){
	"tight-slo": func(run *benchv1.BenchmarkRun) { run.Spec.SLO = &benchv1.SLO{P99: "100us"} },
}

// Load reads a recorded run from the repository at root and strips what the engine
// decides, leaving the trials, their figures and the steps' conditions, as a run is when
// its last trial has run. A case "recorded+variant" changes the recorded run's spec.
func Load(root, name string) (*benchv1.BenchmarkRun, error) {
	recorded, variant, _ := strings.Cut(name, "+")
	b, err := os.ReadFile(filepath.Join(root, "hack", "reproductions", "testdata", "last-run", recorded, "status.yaml"))
	if err != nil {
		return nil, err
	}
	run := &benchv1.BenchmarkRun{}
	if err := yaml.UnmarshalStrict(b, run); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	st := &run.Status
	st.Phase, st.Results, st.Headline, st.Search, st.Capacity, st.Progress, st.FinishedAt, st.Baseline =
		benchv1.PhaseAnalyzing, nil, "", nil, "", "", nil, nil
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c metav1.Condition) bool {
		return !slices.Contains([]string{benchv1.ConditionAccepted, benchv1.ConditionDependenciesReady,
			benchv1.ConditionDatabaseReady, benchv1.ConditionTargetsReady, benchv1.ConditionTargetsVerified}, c.Type)
	})
	if variant != "" {
		change, ok := variants[variant]
		if !ok {
			return nil, fmt.Errorf("%s: no variant %q", name, variant)
		}
		change(run)
	}
	return run, nil
}

// Decision is what the engine decided, as text: the phase, the headline, the progress,
// every condition (type, status, reason, message; no times) and every row's verdict.
func Decision(run *benchv1.BenchmarkRun) string {
	var b strings.Builder
	st := run.Status
	fmt.Fprintf(&b, "phase: %s\nheadline: %s\nprogress: %s\ncapacity: %s\n", st.Phase, st.Headline, st.Progress, st.Capacity)
	conds := slices.Clone(st.Conditions)
	slices.SortFunc(conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	for _, c := range conds {
		fmt.Fprintf(&b, "condition %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	for _, r := range st.Results {
		unc := int64(-1)
		if r.Wire != nil {
			unc = r.Wire.UncertaintyMicros
		}
		fmt.Fprintf(&b, "row %s/%s@%d: n %d valid %v flags %v slo %s p99 %d wire-uncertainty %d\n", r.Target, r.Scenario, r.LoadPoint,
			r.Repetitions, r.Valid, r.Flags, r.SLO, r.P99Micros.Median, unc)
	}
	for _, t := range st.Trials {
		fmt.Fprintf(&b, "trial %s: %s\n", t.Name, t.Phase)
	}
	return b.String()
}

// DecideAll feeds every case through a mode's decide and compares its decision with the
// committed one; it returns what differs.
func DecideAll(root string, decide func(*benchv1.BenchmarkRun) error) []error {
	var errs []error
	for _, name := range Cases {
		run, err := Load(root, name)
		if err == nil {
			err = decide(run)
		}
		if err == nil {
			err = Check(root, name, Decision(run))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errs
}

// Golden is the file holding a case's decision.
func Golden(root, name string) string {
	return filepath.Join(root, "internal", "engine", "testdata", "corpus", name+".txt")
}

// Check compares a mode's decision with the case's file; GAUNTLET_UPDATE_FIXTURES=1
// rewrites the file from the mode that runs first (both must then agree with it).
func Check(root, name, got string) error {
	file := Golden(root, name)
	if os.Getenv("GAUNTLET_UPDATE_FIXTURES") == "1" {
		return os.WriteFile(file, []byte(got), 0o644)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if string(want) != got {
		return fmt.Errorf("%s: the decision differs from %s:\n--- want\n%s\n--- got\n%s", name, file, want, got)
	}
	return nil
}
