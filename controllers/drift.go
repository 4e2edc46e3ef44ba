package controllers

import (
	"context"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
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
	return r.serviceDrift(ctx, run, t)
}

// serviceDrift checks the trial's Service, where the load and the contract checks go: it
// still exists and is still the ClusterIP Service the operator created, selecting the
// same pods on the same ports. Turned into an ExternalName, or given another selector, it
// would send the load to any host or pod.
func (r *BenchmarkRunReconciler) serviceDrift(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) (string, error) {
	want := wantService(run, t)
	if want == nil {
		return "", nil
	}
	target, name := t.Target, want.Name
	svc := &corev1.Service{}
	key := client.ObjectKey{Namespace: run.Namespace, Name: name}
	err := r.Get(ctx, key, svc)
	if apierrors.IsNotFound(err) {
		// The cache may not have seen a Service created moments ago (a run whose first trial
		// starts within seconds of its targets): only the API server can say it is gone.
		err = r.APIReader.Get(ctx, key, svc)
	}
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Sprintf("target %s: Service %s was deleted during the trial", target, name), nil
	case err != nil:
		return "", err
	case !svc.DeletionTimestamp.IsZero():
		return fmt.Sprintf("target %s: Service %s is being deleted", target, name), nil
	case svc.Spec.Type != want.Spec.Type || svc.Spec.ExternalName != "":
		return fmt.Sprintf("target %s: Service %s was changed during the run (type %s%s; the operator created %s)",
			target, name, svc.Spec.Type, ifSet(" to ", svc.Spec.ExternalName), want.Spec.Type), nil
	case !maps.Equal(svc.Spec.Selector, want.Spec.Selector):
		return fmt.Sprintf("target %s: Service %s was changed during the run (its selector no longer names the target's pods)", target, name), nil
	case !samePorts(svc.Spec.Ports, want.Spec.Ports):
		return fmt.Sprintf("target %s: Service %s was changed during the run (its ports)", target, name), nil
	}
	return "", nil
}

// wantService is the Service the operator created for the trial's target (or null
// responder), from the same builder; nil when the spec no longer names the target.
func wantService(run *benchv1.BenchmarkRun, t *benchv1.Trial) *corev1.Service {
	if t.Calibration {
		return specs.NullResponderService(run, calibrationPool(run))
	}
	for _, target := range run.Spec.Targets {
		if target.Name == t.Target {
			return specs.TargetService(run, target)
		}
	}
	return nil
}

func samePorts(got, want []corev1.ServicePort) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if got[i].Port != want[i].Port || got[i].TargetPort != want[i].TargetPort || got[i].Protocol != want[i].Protocol {
			return false
		}
	}
	return true
}

func ifSet(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
