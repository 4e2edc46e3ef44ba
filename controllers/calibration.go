package controllers

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// calibrationPool is the node pool the generator floor is measured on: the first target's.
// The null responder runs there, so the floor's load crosses the same network path as that
// target's (a run comparing pools shares one floor per scenario and load point, as the
// local mode does).
func calibrationPool(run *benchv1.BenchmarkRun) string {
	if len(run.Spec.Targets) == 0 {
		return ""
	}
	return run.Spec.Targets[0].NodePool
}

// calibrationPending is whether a calibration trial is still to run.
func calibrationPending(run *benchv1.BenchmarkRun) bool {
	for _, t := range run.Status.Trials {
		if t.Calibration && (t.Phase == benchv1.TrialPending || t.Phase == benchv1.TrialRunning) {
			return true
		}
	}
	return false
}

// skipCalibration marks the calibration trials not yet run as skipped, with why: without a
// floor the rows keep k6's figures, unjudged for generator noise; the run goes on.
func skipCalibration(run *benchv1.BenchmarkRun, why string) {
	for i := range run.Status.Trials {
		t := &run.Status.Trials[i]
		if t.Calibration && t.Phase == benchv1.TrialPending {
			t.Phase, t.Message = benchv1.TrialSkipped, why
		}
	}
}

// nullResponder deploys the null responder (the calibration trials' target) on the
// calibration pool while calibration trials remain, and returns what the targets phase
// still waits for ("" once it is available). One that does not become available within
// the targets' timeout costs the floor, not the run: its calibration trials are skipped.
func (r *BenchmarkRunReconciler) nullResponder(ctx context.Context, s *scope) (string, error) {
	run := s.run
	if !calibrationPending(run) {
		return "", nil
	}
	pool := calibrationPool(run)
	if err := r.createAll(ctx, s, specs.NullResponderDeployment(run, pool, r.Config), specs.NullResponderService(run, pool)); err != nil {
		return "", err
	}
	name := specs.NullResponderName(run, pool)
	dep := &appsv1.Deployment{}
	err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, dep)
	if apierrors.IsNotFound(err) {
		return "null responder (not observed yet)", nil
	}
	if err != nil {
		return "", err
	}
	if dep.Status.ObservedGeneration >= dep.Generation && dep.Status.AvailableReplicas >= 1 {
		return "", nil
	}
	if overdue(s.now, dep.CreationTimestamp.Time, r.Timeouts.Targets) {
		why := fmt.Sprintf("generator floor not measured: the null responder (Deployment %s, image %s) did not become available within %v%s",
			name, r.Config.NullResponderImage, r.Timeouts.Targets, r.deploymentWaiting(ctx, dep))
		skipCalibration(run, why)
		r.Recorder.Eventf(run, nil, "Warning", benchv1.ReasonCalibrationSkipped, "Deploy", "%s", why)
		return "", nil
	}
	return fmt.Sprintf("null responder (%d/1 available%s)", dep.Status.AvailableReplicas, r.deploymentWaiting(ctx, dep)), nil
}

// removeNullResponder deletes the null responder once no calibration trial remains (before
// the next trial starts). Its Guaranteed CPU (as much as the pool's largest target, up to a
// core) would otherwise stay reserved on the targets' pool for the rest of the run, where
// the targets' trials and their runners need it: on a small pool their pods stayed Pending
// behind it.
func (r *BenchmarkRunReconciler) removeNullResponder(ctx context.Context, s *scope) error {
	run := s.run
	if calibrationPending(run) {
		return nil
	}
	name := specs.NullResponderName(run, calibrationPool(run))
	dep := &appsv1.Deployment{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, dep); err != nil {
		return client.IgnoreNotFound(err) // none: calibration off, or removed already
	}
	if dep.DeletionTimestamp != nil || !ownedBy(dep, run) {
		return nil
	}
	cpu := dep.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	// The Service first: a pass cut short between the two finds the Deployment and goes on.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: name}}
	for _, o := range []client.Object{svc, dep} {
		if err := r.Delete(ctx, o, client.PropagationPolicy("Background")); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the null responder %s: %w", name, err)
		}
	}
	r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonNullResponderRemoved, "Delete",
		"calibration done: null responder %s deleted, its %s of CPU back to the pool", name, cpu.String())
	return nil
}

// trialBaseURL is where a trial sends its load: the target's Service, or the null
// responder's for a calibration trial.
func (r *BenchmarkRunReconciler) trialBaseURL(run *benchv1.BenchmarkRun, t *benchv1.Trial) string {
	if t.Calibration {
		return r.NullResponderURL(run, calibrationPool(run))
	}
	return r.TargetURL(run, targetSpec(run, t.Target))
}
