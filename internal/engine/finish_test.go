package engine

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// A run is Failed for 100% errors only when no measured trial served a request.
func TestNothingServed(t *testing.T) {
	ok := func(req, errs int64) benchv1.Trial {
		return benchv1.Trial{Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: req, Errors: errs}}
	}
	failed := benchv1.Trial{Phase: benchv1.TrialFailed}
	cases := []struct {
		name   string
		trials []benchv1.Trial
		want   bool
	}{
		{"all errors", []benchv1.Trial{ok(100, 100), ok(50, 50)}, true},
		{"one served request", []benchv1.Trial{ok(100, 100), ok(50, 49)}, false},
		{"nothing measured", []benchv1.Trial{failed}, false},
		{"no requests at all", []benchv1.Trial{ok(0, 0), failed}, true},
	}
	for _, c := range cases {
		if got := nothingServed(c.trials) != ""; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func finishedRun(rows ...benchv1.ResultRow) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{}
	run.Status.Phase = benchv1.PhaseAnalyzing
	run.Status.Trials = []benchv1.Trial{{Name: "t1", Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 10}}}
	run.Status.Results = rows
	return run
}

// Finish's decisions, each with its reason: a failed trial, a failed verification, no
// valid row, an inconclusive headline, a conclusive run.
func TestFinishDecides(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name              string
		run               func() *benchv1.BenchmarkRun
		phase             benchv1.Phase
		cond, status, why string
	}{
		{"a trial failed", func() *benchv1.BenchmarkRun {
			r := finishedRun()
			r.Status.Trials = append(r.Status.Trials, benchv1.Trial{Name: "t2", Phase: benchv1.TrialFailed, Message: "target go exited"})
			return r
		}, benchv1.PhaseFailed, benchv1.ConditionComplete, "False", benchv1.ReasonTrialFailed},
		{"a calibration failed", func() *benchv1.BenchmarkRun {
			r := finishedRun()
			r.Status.Trials = append(r.Status.Trials, benchv1.Trial{Name: "c1", Calibration: true, Phase: benchv1.TrialFailed})
			return r
		}, benchv1.PhaseSucceeded, benchv1.ConditionComplete, "True", benchv1.ReasonAllTrialsRan},
		{"verification failed", func() *benchv1.BenchmarkRun {
			r := finishedRun()
			SetCondition(r, benchv1.ConditionTargetsVerified, "False", benchv1.ReasonVerifyFailed, "node: /db/ping: 500")
			return r
		}, benchv1.PhaseFailed, benchv1.ConditionReady, "False", benchv1.ReasonFailed},
		// Its trials were never timed: the run went on to the end, and failed for it.
		{"verification failed, its trials not timed", func() *benchv1.BenchmarkRun {
			r := finishedRun()
			r.Status.Trials = append(r.Status.Trials, benchv1.Trial{Name: "t2", Phase: benchv1.TrialFailed, Message: "not timed: failed verification"})
			SetCondition(r, benchv1.ConditionTargetsVerified, "False", benchv1.ReasonVerifyFailed, "node: /db/ping: 500")
			return r
		}, benchv1.PhaseFailed, benchv1.ConditionComplete, "True", benchv1.ReasonAllTrialsRan},
	}
	for _, c := range cases {
		run := c.run()
		Finish(run, now, nil)
		GitOps(run)
		got := meta.FindStatusCondition(run.Status.Conditions, c.cond)
		if run.Status.Phase != c.phase || got == nil || string(got.Status) != c.status || got.Reason != c.why || run.Status.FinishedAt == nil {
			t.Errorf("%s: phase %s, %s %+v; want %s, %s=%s %s", c.name, run.Status.Phase, c.cond, got, c.phase, c.cond, c.status, c.why)
		}
	}
}

// Conclusive counts the rows and the flags that made them invalid; the GitOps conditions
// follow it.
func TestConclusive(t *testing.T) {
	row := func(target string, valid bool, p99 int64, flags ...string) benchv1.ResultRow {
		return benchv1.ResultRow{Target: target, Scenario: "ping", LoadPoint: 100, Repetitions: 1, Valid: valid, Flags: flags,
			P99Micros: benchv1.Stat{Median: p99}}
	}
	cases := []struct {
		name   string
		rows   []benchv1.ResultRow
		status metav1.ConditionStatus
		reason string
		says   string
	}{
		{"no valid row", []benchv1.ResultRow{row("go", false, 900, "GeneratorBound"), row("node", false, 800, "GeneratorBound", "MostlyFailed")},
			"False", benchv1.ReasonNoValidResult, "0 of 2 rows valid; invalid rows' flags: GeneratorBound 2, MostlyFailed 1"},
		{"a rival below the best", []benchv1.ResultRow{row("go", true, 900), row("node", false, 800, "GeneratorBound")},
			"False", benchv1.ReasonHeadlineInconclusive, "1 of 2 rows valid"},
		{"conclusive", []benchv1.ResultRow{row("go", true, 900), row("node", false, 1800, "GeneratorBound")},
			"True", benchv1.ReasonValidResults, "1 of 2 rows valid; invalid rows' flags: GeneratorBound 1"},
	}
	for _, c := range cases {
		run := finishedRun(c.rows...)
		run.Status.Headline = results.Headline(run.Status.Results)
		conclusive(run)
		GitOps(run)
		got := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive)
		if got == nil || got.Status != c.status || got.Reason != c.reason || !strings.Contains(got.Message, c.says) {
			t.Errorf("%s: %+v, want %s %s saying %q", c.name, got, c.status, c.reason, c.says)
		}
		run.Status.Phase = benchv1.PhaseSucceeded
		GitOps(run)
		ready := meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionReady)
		stalled := meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionStalled)
		if ready != (c.status == "True") || stalled == ready {
			t.Errorf("%s: Ready %v, Stalled %v", c.name, ready, stalled)
		}
	}
}
