package controllers

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// results aggregates the trials with internal/results (the local mode's code), every pass,
// and finishes the run once every trial has run.
func (r *BenchmarkRunReconciler) results(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	run.Status.Progress = results.Progress(run.Status.Trials)
	old := run.Status.Results
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	compare.CarryOver(old, run.Status.Results)
	run.Status.Headline = results.Headline(run.Status.Results)
	r.searchStatus(s)
	if rows := sloRows(run); run.Spec.SLO != nil && len(rows) > 0 {
		var missed []string
		for _, row := range rows {
			if row.SLO == benchv1.VerdictMissed {
				missed = append(missed, fmt.Sprintf("%s/%s@%d", row.Target, row.Scenario, row.LoadPoint))
			}
		}
		if len(missed) > 0 {
			setCondition(run, benchv1.ConditionSLOMet, metav1.ConditionFalse, ReasonSLOMissed, "missed by "+strings.Join(missed, ", "))
		} else {
			setCondition(run, benchv1.ConditionSLOMet, metav1.ConditionTrue, ReasonSLOMet, "every result row meets the SLO")
		}
	}
	if run.Status.Phase != benchv1.PhaseAnalyzing {
		return ctrl.Result{}, nil
	}
	if err := r.compareBaseline(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	setCondition(run, benchv1.ConditionComplete, metav1.ConditionTrue, ReasonAllTrialsRan, "every trial has run: "+run.Status.Progress)
	run.Status.FinishedAt = &metav1.Time{Time: s.now}
	if why := nothingServed(run.Status.Trials); why != "" {
		// Every request failed: the figures describe error responses, not the targets.
		setCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, ReasonAllRequestsFailed, why)
		run.Status.Phase = benchv1.PhaseFailed
		r.Recorder.Eventf(run, nil, "Warning", ReasonAllRequestsFailed, "Finish", "%s", why)
	} else if c := findCondition(run.Status.Conditions, benchv1.ConditionTargetsVerified); c != nil && c.Status == metav1.ConditionFalse {
		run.Status.Phase = benchv1.PhaseFailed
		r.Recorder.Eventf(run, nil, "Warning", ReasonFailed, "Finish", "the run finished without the targets that failed verification: %s", c.Message)
	} else {
		run.Status.Phase = benchv1.PhaseSucceeded
		r.Recorder.Eventf(run, nil, "Normal", ReasonSucceeded, "Finish", "the run succeeded: %s", run.Status.Headline)
	}
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll / 10}, nil
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
