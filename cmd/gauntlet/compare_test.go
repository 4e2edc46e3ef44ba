package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// writeRun writes a finished run's results folder whose go/ping@200 repetitions have these p50s.
func writeRun(t *testing.T, name string, p50s ...int64) string {
	t.Helper()
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}}, Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}}}
	for i, v := range p50s {
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: name + string(rune('a'+i)), Target: "go", Scenario: "ping",
			LoadPoint: 200, Repetition: int32(i + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: 200_000, P50Micros: v, P99Micros: 3 * v}})
	}
	now := metav1.Now()
	run.Status.FinishedAt = &now
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteOutputs(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCompare(args ...string) (string, error) {
	cmd := newCompareCmd()
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestCompareCommand(t *testing.T) {
	before := writeRun(t, "before", 500, 505, 498, 502, 501)
	after := writeRun(t, "after", 600, 606, 597, 603, 601)
	out, err := runCompare(before, filepath.Join(after, report.StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go", "ping", "200/s", "p50", "501µs (n=5)", "601µs (n=5)", "+20.", "0.0079", "Slower", "Regressed=True"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// The other way round it is Faster, and nothing regressed.
	if out, err := runCompare("--fail-on-regression", after, before); err != nil || !strings.Contains(out, "Faster") || !strings.Contains(out, "Regressed=False") {
		t.Fatalf("reversed: %v\n%s", err, out)
	}
	if _, err := runCompare("--fail-on-regression", before, after); !errors.Is(err, errRegressed) {
		t.Fatalf("--fail-on-regression: %v", err)
	}
	// p99 with a 25% minimum effect: +20% is real but under it.
	if out, _ := runCompare("--metric", "p99", "--min-effect", "0.25", before, after); !strings.Contains(out, "NoChange") {
		t.Fatalf("p99 at 25%%:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
		code outcome.Code // bad flag values are the input's, a missing folder the machine's
	}{
		{[]string{"--min-effect", "5%", before, after}, "spec.baseline.minEffect", outcome.Usage},
		{[]string{"--metric", "p42", before, after}, "spec.baseline.metric", outcome.Usage},
		{[]string{filepath.Join(before, "nothing"), after}, "BASELINE", outcome.Error},
		{[]string{before, t.TempDir()}, "RUN", outcome.Error},
	} {
		_, err := runCompare(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.args, err, c.want)
		}
		if code := exitCode(err); code != c.code {
			t.Errorf("%v: exit status %d, want %d (%s)", c.args, code, c.code, c.code)
		}
	}
}

// RUN alone: its same-run pairs are judged within it, a slowdown exits 3 under
// --fail-on-regression; a RUN with no pair needs a BASELINE.
func TestCompareWithinARun(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "ab"}}
	run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "v1", Preset: "go-nethttp"}, {Name: "v2", Preset: "go-nethttp", BaselineTarget: "v1"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}}, Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}}}
	for i, v := range []int64{500, 505, 498, 502, 501} {
		for target, p50 := range map[string]int64{"v1": v, "v2": v * 11 / 10} {
			run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: fmt.Sprintf("%s.%d", target, i), Target: target, Scenario: "ping",
				LoadPoint: 200, Repetition: int32(i + 1), Phase: benchv1.TrialSucceeded,
				Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: 200_000, P50Micros: p50, P99Micros: 3 * p50}})
		}
	}
	now := metav1.Now()
	run.Status.FinishedAt = &now
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	dir := filepath.Join(t.TempDir(), "ab")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteOutputs(dir, run); err != nil {
		t.Fatal(err)
	}
	out, err := runCompare("--fail-on-regression", dir)
	if !errors.Is(err, errRegressed) || !strings.Contains(out, "within the run: v2 vs v1") || !strings.Contains(out, "verdict: v2/ping@200 vs v1: Slower +9.9% [") {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err = runCompare(writeRun(t, "alone", 1, 2, 3, 4))
	if err == nil || !strings.Contains(err.Error(), "baselineTarget") || exitCode(err) != outcome.Usage {
		t.Fatalf("RUN without a pair and no BASELINE: %v", err)
	}
}
