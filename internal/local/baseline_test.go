package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

func finishedRun(name string, at time.Time, p50s ...int64) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}}, Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100}}}
	for i, v := range p50s {
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Target: "go", Scenario: "ping", LoadPoint: 100, Repetition: int32(i + 1),
			Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 1000, AchievedMilliRPS: 100_000, P50Micros: v}})
	}
	fin := metav1.NewTime(at)
	run.Status.FinishedAt = &fin
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	return run
}

func TestBaselineFromSpecOrFlag(t *testing.T) {
	root := t.TempDir()
	write := func(dir string, run *benchv1.BenchmarkRun) string {
		path := filepath.Join(root, dir)
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteOutputs(path, run); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	write("ci-20250102-030405", finishedRun("ci", t0, 100, 101, 102, 103))
	newest := write("ci-20250103-000000", finishedRun("ci", t0.Add(24*time.Hour), 200, 201, 202, 203))
	write("ci-other-20250104-000000", finishedRun("ci-other", t0.Add(48*time.Hour), 1, 2, 3, 4)) // another run's prefix
	unfinished := finishedRun("ci", t0.Add(72*time.Hour), 5, 5, 5, 5)
	unfinished.Status.FinishedAt = nil
	write("ci-20250105-000000", unfinished)

	run := finishedRun("ci", t0.Add(96*time.Hour), 200, 202, 201, 203)
	run.Spec.Baseline = &benchv1.Baseline{Run: "ci"}
	out := filepath.Join(root, "ci-20250106-000000")
	b, err := loadBaseline(run, "", out)
	if err != nil || b.err != nil || b.source != filepath.Join(newest, report.StatusFile) {
		t.Fatalf("spec.baseline.run: %+v %v", b, err)
	}
	b.apply(run, nil)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse ||
		run.Status.Results[0].Baseline.Verdict != benchv1.VerdictNoChange {
		t.Fatalf("against the newest: %+v %+v", c, run.Status.Results[0].Baseline)
	}

	// --baseline wins over the spec; one that cannot be read stops the run before it starts.
	b, err = loadBaseline(run, filepath.Join(root, "ci-20250102-030405"), out)
	if err != nil || b.run.Status.Results[0].P50Micros.Median != 101 {
		t.Fatalf("--baseline: %+v %v", b, err)
	}
	if _, err := loadBaseline(run, filepath.Join(root, "missing"), out); err == nil || !strings.Contains(err.Error(), "--baseline") {
		t.Fatalf("unreadable --baseline: %v", err)
	}
	// No earlier folder of that name: the run goes on, Regressed is Unknown and says why.
	run.Spec.Baseline.Run = "nobody"
	b, err = loadBaseline(run, "", out)
	if err != nil || b.err == nil {
		t.Fatalf("missing baseline: %+v %v", b, err)
	}
	b.apply(run, nil)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c.Status != metav1.ConditionUnknown ||
		!strings.Contains(c.Message, `no finished results folder of run "nobody"`) {
		t.Fatalf("%+v", c)
	}
	// Without spec.baseline or --baseline, nothing is compared.
	run.Spec.Baseline = nil
	if b, err := loadBaseline(run, "", out); b != nil || err != nil {
		t.Fatalf("no baseline asked: %+v %v", b, err)
	}
}
