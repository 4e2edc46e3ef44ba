package controllers

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A target Deployment deleted or scaled to 0 while its trial runs fails that trial, and
// the run, with a message naming the Deployment.
func TestTargetDriftFailsTheTrial(t *testing.T) {
	testenv.Long(t)
	cases := []struct {
		name   string
		change func(ctx context.Context, dep *appsv1.Deployment) error
		says   string
	}{
		{"deleted", func(ctx context.Context, dep *appsv1.Deployment) error { return env.Client.Delete(ctx, dep) }, "was deleted during the trial"},
		{"scaled-to-zero", func(ctx context.Context, dep *appsv1.Deployment) error {
			patch := client.MergeFrom(dep.DeepCopy())
			dep.Spec.Replicas = ptr.To[int32](0)
			return env.Client.Patch(ctx, dep, patch)
		}, "was scaled to 0 during the trial"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			run := pingRun("drift-" + c.name)
			startHeldTrial(t, run)
			dep := &appsv1.Deployment{}
			name := specs.TargetName(run, "go")
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, dep); err != nil {
				t.Fatal(err)
			}
			if err := c.change(ctx, dep); err != nil {
				t.Fatal(err)
			}
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
			cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
			if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != benchv1.ReasonTargetDrift {
				t.Fatalf("phase %s, Complete %+v", got.Status.Phase, cond)
			}
			for _, want := range []string{"trial go.ping.100.r1 failed", "Deployment " + name, c.says} {
				if !strings.Contains(cond.Message, want) {
					t.Errorf("message %q does not say %q", cond.Message, want)
				}
			}
			if got.Status.Trials[0].Phase != benchv1.TrialFailed {
				t.Errorf("trial %+v, want Failed", got.Status.Trials[0])
			}
			t.Log(cond.Message)
		})
	}
}

// startHeldTrial creates run with its k6 held in the measured window and waits until its
// first trial runs; the hold is released, then the run deleted, when the test ends.
func startHeldTrial(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	ctx := context.Background()
	hold := make(chan struct{})
	fakes.script(run.Name, &k6Outcome{hold: hold})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	t.Cleanup(func() { close(hold) }) // cleanups run last-first: the hold goes before the run
	waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseRunning && r.Status.Trials[0].MeasureStart != nil
	})
}

// The Service the load goes through is part of the target: turned into an ExternalName or
// given another selector during a trial, it fails the trial, naming the Service.
func TestServiceDriftFailsTheTrial(t *testing.T) {
	testenv.Long(t)
	cases := []struct {
		name   string
		change func(svc *corev1.Service)
		says   string
	}{
		{"externalname", func(svc *corev1.Service) {
			svc.Spec.Type, svc.Spec.ExternalName = corev1.ServiceTypeExternalName, "metadata.example.com"
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs, svc.Spec.Selector = "", nil, nil
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy, svc.Spec.InternalTrafficPolicy = nil, nil, nil
		}, "type ExternalName to metadata.example.com"},
		{"selector", func(svc *corev1.Service) { svc.Spec.Selector = map[string]string{"app": "elsewhere"} }, "selector no longer names the target's pods"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			run := pingRun("svc-drift-" + c.name)
			startHeldTrial(t, run)
			svc := &corev1.Service{}
			name := specs.TargetName(run, "go")
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, svc); err != nil {
				t.Fatal(err)
			}
			c.change(svc)
			if err := env.Client.Update(ctx, svc); err != nil {
				t.Fatal(err)
			}
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
			cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
			if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != benchv1.ReasonTargetDrift {
				t.Fatalf("phase %s, Complete %+v", got.Status.Phase, cond)
			}
			for _, want := range []string{"Service " + name, c.says} {
				if !strings.Contains(cond.Message, want) {
					t.Errorf("message %q does not say %q", cond.Message, want)
				}
			}
		})
	}
}

// Finalizers are patched under an optimistic lock: a pass working from a stale copy of the
// run never drops a finalizer another controller added meanwhile.
func TestFinalizerPatchKeepsAnotherControllersFinalizer(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns, other = "finalizer-lock", "other.example/hold"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	run := pingRun("stale")
	run.Namespace = ns // no manager watches it: only this test's calls touch the run
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	stale := run.DeepCopy()
	fresh := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), fresh); err != nil {
		t.Fatal(err)
	}
	fresh.Finalizers = append(fresh.Finalizers, other)
	if err := env.Client.Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	r := &BenchmarkRunReconciler{Client: env.Client, APIReader: env.Client}
	if _, err := r.ensureFinalizer(ctx, stale); err != nil {
		t.Fatal(err)
	}
	got := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Finalizers, other) {
		t.Fatalf("finalizers %v: the stale patch dropped %s", got.Finalizers, other)
	}
	// From the current object the operator's finalizer goes on beside the other.
	if _, err := r.ensureFinalizer(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Finalizers, other) || !slices.Contains(got.Finalizers, finalizerName) {
		t.Errorf("finalizers %v, want %s and %s", got.Finalizers, other, finalizerName)
	}
	got.Finalizers = nil
	_ = env.Client.Update(ctx, got)
	_ = env.Client.Delete(ctx, got)
}
