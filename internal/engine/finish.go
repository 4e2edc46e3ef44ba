package engine

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Fail ends the run Failed: condition (the step that failed) is False with reason and msg.
// What was measured stays in status.
func Fail(run *benchv1.BenchmarkRun, condition, reason, msg string, now time.Time, notify Notify) {
	SetCondition(run, condition, metav1.ConditionFalse, reason, msg)
	run.Status.Phase = benchv1.PhaseFailed
	run.Status.FinishedAt = &metav1.Time{Time: now}
	notify.say(true, reason, "Fail", msg)
}

// Finish decides a run whose trials have all run or could not: Complete, the final phase,
// and Conclusive. It is Failed when a trial failed, every measured request failed, or a
// target failed verification; otherwise Succeeded, and Conclusive says whether its rows
// support an answer.
func Finish(run *benchv1.BenchmarkRun, now time.Time, notify Notify) {
	Tally(run, notify)
	st := &run.Status
	st.FinishedAt = &metav1.Time{Time: now}
	if st.Phase == benchv1.PhaseFailed {
		return // failed earlier, with its own reason
	}
	// A target that failed verification never had its trials timed: that failure, not
	// each of its trials, is why the run failed, and every trial that could run has run.
	unverified := meta.FindStatusCondition(st.Conditions, benchv1.ConditionTargetsVerified)
	if unverified != nil && unverified.Status != metav1.ConditionFalse {
		unverified = nil
	}
	if failed := failedTrials(st.Trials); len(failed) > 0 && unverified == nil {
		msg := fmt.Sprintf("failed trials (%d): %s", len(failed), strings.Join(names(failed), ", "))
		if len(failed) == 1 {
			msg = fmt.Sprintf("trial %s failed: %s", failed[0].Name, failed[0].Message)
		}
		Fail(run, benchv1.ConditionComplete, benchv1.ReasonTrialFailed, msg, now, notify)
		return
	}
	SetCondition(run, benchv1.ConditionComplete, metav1.ConditionTrue, benchv1.ReasonAllTrialsRan, "every trial has run: "+st.Progress)
	if why := nothingServed(st.Trials); why != "" {
		// Every request failed: the figures describe error responses, not the targets.
		Fail(run, benchv1.ConditionComplete, benchv1.ReasonAllRequestsFailed, why, now, notify)
		return
	}
	if unverified != nil {
		st.Phase = benchv1.PhaseFailed
		notify.say(true, benchv1.ReasonFailed, "Finish", "the run finished without the targets that failed verification: "+unverified.Message)
		return
	}
	st.Phase = benchv1.PhaseSucceeded
	conclusive(run)
	if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionConclusive); c != nil && c.Status == metav1.ConditionFalse {
		notify.say(true, benchv1.ReasonInconclusive, "Finish", "the run finished, inconclusive: "+c.Message)
		return
	}
	notify.say(false, benchv1.ReasonSucceeded, "Finish", "the run succeeded: "+st.Headline)
}

// failedTrials are the targets' trials that failed; a calibration trial's failure only
// leaves the rows unjudged for generator noise.
func failedTrials(trials []benchv1.Trial) []benchv1.Trial {
	var out []benchv1.Trial
	for _, t := range trials {
		if t.Phase == benchv1.TrialFailed && !t.Calibration {
			out = append(out, t)
		}
	}
	return out
}

func names(trials []benchv1.Trial) []string {
	out := make([]string, len(trials))
	for i, t := range trials {
		out[i] = t.Name
	}
	return out
}

// nothingServed says why a run measured nothing a target served: every trial that was
// measured had 100% errors (or no request at all). "" when at least one trial measured
// a request that succeeded, or none was measured (the other checks explain that).
func nothingServed(trials []benchv1.Trial) string {
	measured, failedRequests := 0, int64(0)
	for _, t := range trials {
		if t.Phase != benchv1.TrialSucceeded || t.Result == nil || t.Calibration {
			continue // the null responder always answers: it says nothing about the targets
		}
		if t.Result.Requests > 0 && t.Result.Errors < t.Result.Requests {
			return ""
		}
		measured++
		failedRequests += t.Result.Errors
	}
	if measured == 0 {
		return ""
	}
	return fmt.Sprintf("every measured trial had 100%% errors (%d of %d trials, %d failed requests): no figure describes a served request",
		measured, len(trials), failedRequests)
}
