package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
)

// compareBaseline judges the run against spec.baseline's run (internal/compare), once, as
// the run finishes: the verdicts then stay what they were when the run ended, whatever
// becomes of the baseline. A baseline that cannot be read makes Regressed Unknown, not a
// failed run: the measurements stand on their own.
func (r *BenchmarkRunReconciler) compareBaseline(ctx context.Context, s *scope) error {
	run := s.run
	b := run.Spec.Baseline
	if b == nil {
		return nil
	}
	unavailable := func(why string) error {
		compare.Unavailable(run, why)
		r.Recorder.Eventf(run, nil, "Warning", benchv1.ReasonBaselineUnavailable, "Compare", "%s", why)
		return nil
	}
	o, err := compare.OptionsFrom(b)
	if err != nil {
		return unavailable(err.Error())
	}
	base := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: b.Run}, base); err != nil {
		if apierrors.IsNotFound(err) {
			return unavailable(fmt.Sprintf("spec.baseline.run: no BenchmarkRun %q in namespace %s", b.Run, run.Namespace))
		}
		return err
	}
	if !finished(base) {
		return unavailable(fmt.Sprintf("spec.baseline.run: %s has not finished (phase %q): nothing final to compare with", b.Run, base.Status.Phase))
	}
	compare.Apply(run, base, run.Namespace+"/"+b.Run, o)
	if c := findCondition(run.Status.Conditions, benchv1.ConditionRegressed); c != nil {
		kind, reason := "Normal", benchv1.ReasonBaselineCompared
		if c.Reason == benchv1.ReasonSlower {
			kind, reason = "Warning", benchv1.ReasonRegressed
		}
		r.Recorder.Eventf(run, nil, kind, reason, "Compare", "%s", c.Message)
	}
	return nil
}
