package local

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/search"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// setCondition records a condition; the transition time is now whenever its status changes.
func setCondition(run *benchv1.BenchmarkRun, typ string, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: typ, Status: status,
		Reason: reason, Message: msg, ObservedGeneration: run.Generation})
}

// finish aggregates the trials and sets the final phase and conditions. interrupted and
// fatal (a setup failure) make the run Failed, as does any failed trial or target.
func finish(run *benchv1.BenchmarkRun, interrupted bool, fatal string) {
	st := &run.Status
	st.Phase = benchv1.PhaseAnalyzing
	st.Results = results.Aggregate(&run.Spec, st.Trials)
	for i := range st.Results {
		if w := st.Results[i].Wire; w != nil {
			w.UncertaintyMicros = wire.UncertaintyMicros
		}
	}
	results.ApplyPlacement(st.Results, st.Placement)
	st.Headline = results.Headline(st.Results)
	st.Search = search.Status(&run.Spec, st.Trials)
	st.Capacity = search.Summary(st.Search)
	st.Progress = results.Progress(st.Trials)
	now := metav1.Now()
	st.FinishedAt = &now

	var failed []string
	for _, t := range st.Trials {
		if t.Phase == benchv1.TrialFailed {
			failed = append(failed, t.Name)
		}
	}
	switch {
	case interrupted:
		setCondition(run, benchv1.ConditionComplete, false, "Interrupted", "stopped by a signal after "+st.Progress+" trials; the figures are those measured so far")
	case fatal != "":
		setCondition(run, benchv1.ConditionComplete, false, "SetupFailed", fatal)
	case len(failed) > 0:
		setCondition(run, benchv1.ConditionComplete, true, "TrialsFailed", "failed trials: "+strings.Join(failed, ", "))
	default:
		setCondition(run, benchv1.ConditionComplete, true, "AllTrialsFinished", st.Progress+" trials finished")
	}
	if run.Spec.SLO != nil {
		met, missed := true, []string{}
		for _, r := range st.Results {
			if !search.CountsForSLO(&run.Spec, st.Search, r) {
				continue // a search's measurement on the way to its answer
			}
			if r.SLO != benchv1.VerdictMet {
				met = false
				missed = append(missed, r.Target+"/"+r.Scenario)
			}
		}
		msg := "every row meets the SLO"
		if !met {
			msg = "missed or not measured: " + strings.Join(missed, ", ")
		}
		setCondition(run, benchv1.ConditionSLOMet, met && len(st.Results) > 0, map[bool]string{true: "Met", false: "Missed"}[met], msg)
	}
	ok := !interrupted && fatal == "" && len(failed) == 0
	st.Phase = benchv1.PhaseSucceeded
	reason := "Succeeded"
	if !ok {
		st.Phase, reason = benchv1.PhaseFailed, "Failed"
	}
	setCondition(run, benchv1.ConditionReady, ok, reason, st.Headline)
	setCondition(run, benchv1.ConditionReconciling, false, "Finished", "the local run has ended")
	stalled := "Finished"
	if !ok {
		stalled = "Failed"
	}
	setCondition(run, benchv1.ConditionStalled, !ok, stalled, "")
}
