package controllers

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
)

// results tallies the trials every pass (internal/engine, as the local mode does) and,
// once every trial has run, compares with the baseline and lets the engine decide the run.
func (r *BenchmarkRunReconciler) results(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	engine.Tally(run, s.notify)
	if run.Status.Phase != benchv1.PhaseAnalyzing {
		return ctrl.Result{}, nil
	}
	if err := r.recordEnvironment(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.compareBaseline(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	engine.Finish(run, s.now, s.notify)
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll / 10}, nil
}
