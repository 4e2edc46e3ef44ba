package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
)

// compareBaseline judges the run (internal/engine.Compare): its same-run pairs, and the run
// spec.baseline.run names, read once, as the run finishes: the verdicts then stay what they
// were when the run ended, whatever becomes of the baseline. A baseline that cannot be read
// makes Regressed Unknown, not a failed run: the measurements stand on their own.
func (r *BenchmarkRunReconciler) compareBaseline(ctx context.Context, s *scope) error {
	run := s.run
	base, unavailable, err := r.baselineRun(ctx, run)
	if err != nil {
		return err
	}
	source := ""
	if base != nil {
		source = run.Namespace + "/" + base.Name
	}
	engine.Compare(run, base, source, unavailable, s.notify)
	return nil
}

// baselineRun reads spec.baseline.run: nil and why not when it is missing or unfinished, nil
// and "" when the spec names none.
func (r *BenchmarkRunReconciler) baselineRun(ctx context.Context, run *benchv1.BenchmarkRun) (*benchv1.BenchmarkRun, string, error) {
	b := run.Spec.Baseline
	if b == nil || b.Run == "" {
		return nil, "", nil
	}
	base := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: b.Run}, base); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("spec.baseline.run: no BenchmarkRun %q in namespace %s", b.Run, run.Namespace), nil
		}
		return nil, "", err
	}
	if !finished(base) {
		return nil, fmt.Sprintf("spec.baseline.run: %s has not finished (phase %q): nothing final to compare with", b.Run, base.Status.Phase), nil
	}
	return base, "", nil
}
