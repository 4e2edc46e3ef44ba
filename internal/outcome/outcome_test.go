package outcome

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func cond(typ string, s metav1.ConditionStatus, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: "R", Message: msg}
}

func TestOf(t *testing.T) {
	slo := func(s metav1.ConditionStatus) metav1.Condition {
		return cond(benchv1.ConditionSLOMet, s, "missed by go/ping@100")
	}
	reg := func(s metav1.ConditionStatus) metav1.Condition {
		return cond(benchv1.ConditionRegressed, s, "slower: go/ping@100 +20%")
	}
	failed := cond(benchv1.ConditionComplete, metav1.ConditionTrue, "failed trials: t3")
	noValid := cond(benchv1.ConditionConclusive, metav1.ConditionFalse, "0 of 36 rows valid")
	for _, c := range []struct {
		name  string
		phase benchv1.Phase
		conds []metav1.Condition
		want  Code
		why   string
	}{
		{"succeeded", benchv1.PhaseSucceeded, nil, OK, ""},
		{"succeeded, SLO met, not regressed", benchv1.PhaseSucceeded, []metav1.Condition{slo(metav1.ConditionTrue), reg(metav1.ConditionFalse)}, OK, ""},
		// A verdict not reached is no pass: the pipeline would take every such run as good.
		{"baseline unreadable is inconclusive", benchv1.PhaseSucceeded, []metav1.Condition{reg(metav1.ConditionUnknown)}, Inconclusive, "no regression verdict: slower: go/ping@100 +20%"},
		{"no valid row", benchv1.PhaseSucceeded, []metav1.Condition{noValid, slo(metav1.ConditionTrue)}, Inconclusive, "0 of 36 rows valid"},
		{"no valid row before an SLO and a regression", benchv1.PhaseSucceeded, []metav1.Condition{slo(metav1.ConditionFalse), reg(metav1.ConditionTrue), noValid}, Inconclusive, "0 of 36 rows valid"},
		{"regressed before a verdict not reached", benchv1.PhaseSucceeded, []metav1.Condition{reg(metav1.ConditionTrue), cond(benchv1.ConditionConclusive, metav1.ConditionTrue, "2 of 2 rows valid")}, Regressed, "slower: go/ping@100 +20%"},
		{"failed before inconclusive", benchv1.PhaseFailed, []metav1.Condition{failed, noValid}, Failed, "failed trials: t3"},
		{"SLO missed", benchv1.PhaseSucceeded, []metav1.Condition{slo(metav1.ConditionFalse)}, SLOMissed, "missed by go/ping@100"},
		{"regressed", benchv1.PhaseSucceeded, []metav1.Condition{reg(metav1.ConditionTrue)}, Regressed, "slower: go/ping@100 +20%"},
		{"SLO missed before regressed", benchv1.PhaseSucceeded, []metav1.Condition{reg(metav1.ConditionTrue), slo(metav1.ConditionFalse)}, SLOMissed, "missed by go/ping@100"},
		{"failed before everything", benchv1.PhaseFailed, []metav1.Condition{failed, slo(metav1.ConditionFalse), reg(metav1.ConditionTrue)}, Failed, "failed trials: t3"},
		{"failed: the Ready message", benchv1.PhaseFailed, []metav1.Condition{failed, cond(benchv1.ConditionReady, metav1.ConditionFalse, "database never ready")}, Failed, "database never ready"},
		{"still running", benchv1.PhaseRunning, []metav1.Condition{slo(metav1.ConditionFalse)}, SLOMissed, "missed by go/ping@100"},
	} {
		run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: c.phase, Conditions: c.conds}}
		got, why := Of(run)
		if got != c.want || why != c.why {
			t.Errorf("%s: %d %s %q, want %d %s %q", c.name, got, got, why, c.want, c.want, c.why)
		}
	}
}

// The codes are the documented table: distinct, and stable (pipelines test them).
func TestCodes(t *testing.T) {
	want := map[Code]int{OK: 0, Error: 1, Usage: 2, Regressed: 3, SLOMissed: 4, Failed: 5, Timeout: 6, Inconclusive: 7}
	seen := map[string]bool{}
	for c, n := range want {
		if int(c) != n {
			t.Errorf("%s = %d, want %d", c, c, n)
		}
		if c.String() == "" || seen[c.String()] {
			t.Errorf("code %d has no distinct name: %q", n, c.String())
		}
		seen[c.String()] = true
	}
}

func TestFinished(t *testing.T) {
	for p, want := range map[benchv1.Phase]bool{benchv1.PhaseSucceeded: true, benchv1.PhaseFailed: true,
		benchv1.PhaseRunning: false, benchv1.PhaseAnalyzing: false, "": false} {
		if got := Finished(&benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: p}}); got != want {
			t.Errorf("Finished(%q) = %v", p, got)
		}
	}
}
