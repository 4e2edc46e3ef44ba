package controllers

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// targetDrift checks, on every pass of a running trial, that the target under load is
// still the one that was deployed and verified: its Deployment exists, still asks for a
// pod, has one, and was never edited (the API server bumps metadata.generation on every
// spec change, scaling included; the operator creates it at generation 1 and never
// updates it). It returns "" when nothing changed, or a message naming the Deployment.
//
// An unready pod is not drift: a target saturated by the load misses readiness probes,
// and that slowness is what is measured (its Service keeps not-ready endpoints).
func (r *BenchmarkRunReconciler) targetDrift(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) (string, error) {
	target, name := t.Target, deploymentOf(run, t)
	dep := &appsv1.Deployment{}
	err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, dep)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Sprintf("target %s: Deployment %s was deleted during the trial", target, name), nil
	case err != nil:
		return "", err
	case !dep.DeletionTimestamp.IsZero():
		return fmt.Sprintf("target %s: Deployment %s is being deleted", target, name), nil
	case ptr.Deref(dep.Spec.Replicas, 1) == 0:
		return fmt.Sprintf("target %s: Deployment %s was scaled to 0 during the trial", target, name), nil
	case dep.Generation > 1:
		return fmt.Sprintf("target %s: Deployment %s was changed during the run (generation %d; the operator created generation 1)",
			target, name, dep.Generation), nil
	case dep.Status.ObservedGeneration == dep.Generation && dep.Status.Replicas == 0:
		return fmt.Sprintf("target %s: Deployment %s has no pod", target, name), nil
	}
	return "", nil
}
