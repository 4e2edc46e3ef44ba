package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Finished TestRuns go once their figures are read, with their plan ConfigMaps and k6
// pods, except the last one kept for debugging (--keep-finished-testruns=1); the cleanup
// policy Never keeps everything else.
func TestFinishedTestRunsArePruned(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "retention"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Metrics, r.KeepTestRuns = fixedMeasurer{}, 1
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	run := pingRun("pruned")
	run.Namespace = ns
	run.Spec.Load.Rates = []int32{100, 200, 300}
	fakes.script(run.Name, &k6Outcome{})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Trials) != 3 {
		t.Fatalf("phase %s, %d trials", got.Status.Phase, len(got.Status.Trials))
	}
	for i, tr := range got.Status.Trials {
		keep := i == len(got.Status.Trials)-1
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(specs.TestRunGVK)
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: tr.TestRun}, obj)
		cmErr := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: tr.TestRun}, &corev1.ConfigMap{})
		pods := &corev1.PodList{}
		if err := env.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"k6_cr": tr.TestRun}); err != nil {
			t.Fatal(err)
		}
		if keep && (err != nil || cmErr != nil || len(pods.Items) == 0) {
			t.Errorf("the last TestRun %s was not kept: %v, ConfigMap %v, %d pods", tr.TestRun, err, cmErr, len(pods.Items))
		}
		if !keep && (!apierrors.IsNotFound(err) || !apierrors.IsNotFound(cmErr) || len(pods.Items) > 0) {
			t.Errorf("TestRun %s was kept: %v, ConfigMap %v, %d pods", tr.TestRun, err, cmErr, len(pods.Items))
		}
		if tr.Result == nil {
			t.Errorf("trial %s lost its figures", tr.Name)
		}
	}
}
