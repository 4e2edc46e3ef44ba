// Package outcome maps how a BenchmarkRun ended onto the gauntlet CLI's exit status: one
// code per outcome a pipeline acts on, the same for `run --local`, `wait` and `compare`.
package outcome

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Code is an exit status of the gauntlet CLI.
type Code int

// The exit statuses, documented in docs/cli.md.
const (
	// OK: the run succeeded, met its SLO (if any) and did not regress (if compared).
	OK Code = 0
	// Error: the command could not do its work (the cluster unreachable, the run not
	// found, a file unreadable, a tool missing).
	Error Code = 1
	// Usage: bad input, refused before anything ran (a flag, an argument, a spec field).
	Usage Code = 2
	// Regressed: a result row is Slower than the same row of the baseline.
	Regressed Code = 3
	// SLOMissed: a result row missed spec.slo.
	SLOMissed Code = 4
	// Failed: the run failed (a trial, a target, the setup, or an interruption).
	Failed Code = 5
	// Timeout: `wait` gave up before the run finished.
	Timeout Code = 6
	// Inconclusive: the run succeeded but nothing it measured supports an answer
	// (Conclusive=False: no valid row, or an invalid row could beat the headline), or the
	// regression verdict could not be reached (Regressed=Unknown).
	Inconclusive Code = 7
)

var names = map[Code]string{OK: "Succeeded", Error: "Error", Usage: "Usage", Regressed: "Regressed",
	SLOMissed: "SLOMissed", Failed: "Failed", Timeout: "Timeout", Inconclusive: "Inconclusive"}

// String is the outcome's name, as `-o json` shows it.
func (c Code) String() string { return names[c] }

// Finished says whether the run has ended, Succeeded or Failed.
func Finished(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed
}

// Of is the outcome of a finished run with the condition that decided it. A failed run is
// Failed whatever its rows say; a run whose rows support no answer is Inconclusive (its
// SLO and regression verdicts rest on figures that cannot be trusted); then a missed SLO
// counts before a regression (an absolute requirement before a relative one), and a
// regression verdict that could not be reached is Inconclusive, never a pass. A run still
// going is OK so far.
func Of(run *benchv1.BenchmarkRun) (Code, string) {
	conds := run.Status.Conditions
	if run.Status.Phase == benchv1.PhaseFailed {
		return Failed, message(conds, benchv1.ConditionReady, benchv1.ConditionComplete)
	}
	if c := meta.FindStatusCondition(conds, benchv1.ConditionConclusive); c != nil && c.Status == metav1.ConditionFalse {
		return Inconclusive, c.Message
	}
	if c := meta.FindStatusCondition(conds, benchv1.ConditionSLOMet); c != nil && c.Status == metav1.ConditionFalse {
		return SLOMissed, c.Message
	}
	if meta.IsStatusConditionTrue(conds, benchv1.ConditionRegressed) {
		return Regressed, message(conds, benchv1.ConditionRegressed)
	}
	if c := meta.FindStatusCondition(conds, benchv1.ConditionRegressed); c != nil && c.Status == metav1.ConditionUnknown {
		return Inconclusive, "no regression verdict: " + c.Message
	}
	return OK, ""
}

// message is the first of these conditions' messages that says something.
func message(conds []metav1.Condition, types ...string) string {
	for _, t := range types {
		if c := meta.FindStatusCondition(conds, t); c != nil && c.Status != metav1.ConditionTrue && c.Message != "" {
			return c.Message
		}
	}
	for _, t := range types {
		if c := meta.FindStatusCondition(conds, t); c != nil && c.Message != "" {
			return c.Message
		}
	}
	return ""
}
