package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// poolRun is a run created at sec on a pool selecting sel.
func poolRun(name string, sec int, sel map[string]string) *benchv1.BenchmarkRun {
	run := pingRun(name)
	run.UID = types.UID("uid-" + name)
	run.CreationTimestamp = metav1.NewTime(time.Unix(int64(1_000_000+sec), 0))
	run.Spec.NodePools = []benchv1.NodePool{{Name: "pool", NodeSelector: sel}}
	run.Spec.Targets[0].NodePool = "pool"
	return run
}

// targetOf is a run's target Deployment with replicas, as the operator creates it.
func targetOf(run *benchv1.BenchmarkRun, replicas int32) *appsv1.Deployment {
	d := specs.TargetDeployment(run, run.Spec.Targets[0], specs.Config{})
	d.Spec.Replicas = ptr.To(replicas)
	d.Status.Replicas = replicas
	return d
}

// poolReconciler reads objs; the node list is Forbidden when forbidNodes (a Role).
func poolReconciler(forbidNodes bool, objs ...client.Object) *BenchmarkRunReconciler {
	// A scheme of its own: under -short no envtest setup has registered the API's types.
	sch := runtime.NewScheme()
	if err := scheme.AddToScheme(sch); err != nil {
		panic(err)
	}
	if err := benchv1.AddToScheme(sch); err != nil {
		panic(err)
	}
	c := fake.NewClientBuilder().WithScheme(sch).WithObjects(objs...).
		WithStatusSubresource(&benchv1.BenchmarkRun{}).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*corev1.NodeList); ok && forbidNodes {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", nil)
			}
			return c.List(ctx, list, opts...)
		}}).Build()
	return &BenchmarkRunReconciler{Client: c, APIReader: c, Recorder: events.NewFakeRecorder(10)}
}

// A finished run that keeps its objects keeps its target pods too, on the pool: its
// cleanup scales its Deployments to zero, and until their pods are gone the next run on
// the pool waits.
func TestFinishedRunHoldsThePoolUntilItsPodsGo(t *testing.T) {
	ctx := context.Background()
	sel := map[string]string{"pool": "a"}
	first, second := poolRun("first", 0, sel), poolRun("second", 1, sel)
	first.Status.Phase = benchv1.PhaseFailed
	first.Status.FinishedAt = ptr.To(metav1.NewTime(time.Unix(1_000_100, 0)))
	dep := targetOf(first, 1)
	r := poolReconciler(false, first, second, dep)

	holder, err := r.nodePoolHolder(ctx, second)
	if err != nil || !strings.Contains(holder, "default/first") {
		t.Fatalf("holder %q (%v): want the finished run whose target pod still runs", holder, err)
	}
	n, err := r.scaleDownLeftovers(ctx, first)
	if err != nil || n != 1 {
		t.Fatalf("scaled %d Deployments (%v): want the target's", n, err)
	}
	got := &appsv1.Deployment{}
	if err := r.Get(ctx, client.ObjectKeyFromObject(dep), got); err != nil || ptr.Deref(got.Spec.Replicas, 1) != 0 {
		t.Fatalf("Deployment after the cleanup: replicas %v (%v), want 0", got.Spec.Replicas, err)
	}
	// Scaled, its pod still terminating: the pool stays held.
	if holder, _ := r.nodePoolHolder(ctx, second); holder == "" {
		t.Error("the pool was released while the finished run's pod still ran")
	}
	got.Status.Replicas = 0
	if err := r.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if holder, err := r.nodePoolHolder(ctx, second); holder != "" || err != nil {
		t.Errorf("holder %q (%v) once the pods are gone: want none", holder, err)
	}
	// A run on any node keeps its pods: no lock covered it.
	free := pingRun("free")
	free.UID = "uid-free"
	free.Status.Phase = benchv1.PhaseFailed
	if n, err := poolReconciler(false, free, targetOf(free, 1)).scaleDownLeftovers(ctx, free); n != 0 || err != nil {
		t.Errorf("a run without node pools: scaled %d (%v), want none", n, err)
	}
}

// In a namespaced install the manager's Role cannot list nodes: the overlap check compares
// pools by selector alone there instead of failing every pass Forbidden.
func TestPoolCheckWithoutNodeAccess(t *testing.T) {
	ctx := context.Background()
	first := poolRun("first", 0, map[string]string{"pool": "a"})
	same := poolRun("same", 1, map[string]string{"pool": "a"})
	other := poolRun("other", 2, map[string]string{"size": "big"})
	r := poolReconciler(true, first, same, other)
	if holder, err := r.nodePoolHolder(ctx, same); err != nil || !strings.Contains(holder, "default/first") {
		t.Errorf("same selector: holder %q (%v), want the first run", holder, err)
	}
	if holder, err := r.nodePoolHolder(ctx, other); err != nil || holder != "" {
		t.Errorf("another selector, nodes unreadable: holder %q (%v), want none and no error", holder, err)
	}
}
