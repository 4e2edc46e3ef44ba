package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A run that goes past the operator's maximum run duration fails, saying so, and frees its
// node pools once its kept target is scaled away, however long its spec would have it
// measure.
func TestRunPastTheMaximumDurationFails(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "run-deadline"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) { r.Timeouts.Run = 4 * time.Second })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	run := pingRun("too-long")
	run.Namespace = ns
	run.Spec.NodePools = []benchv1.NodePool{{Name: "p", NodeSelector: map[string]string{"gauntlet.test/pool": "deadline"}}}
	run.Spec.Targets[0].NodePool = "p"
	hold := make(chan struct{})
	defer close(hold)
	fakes.script(run.Name, &k6Outcome{hold: hold}) // k6 never finishes on its own
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
	if got.Status.Phase != benchv1.PhaseFailed || c == nil || c.Reason != benchv1.ReasonRunTimeout || !strings.Contains(c.Message, "maximum run duration of 4s") {
		t.Fatalf("phase %s, Complete %+v", got.Status.Phase, c)
	}
	if took := got.Status.FinishedAt.Sub(got.Status.StartedAt.Time); took > 30*time.Second {
		t.Errorf("the run ended %s after its start, long past its 4s", took)
	}
	// The failed run keeps its objects (cleanup Never): its cleanup scales its target to
	// zero, and the pool is free once that target's pods are gone.
	probe := got.DeepCopy()
	probe.Name, probe.UID, probe.CreationTimestamp = "probe", "probe-uid", metav1.NewTime(time.Now().Add(time.Hour))
	holder, err := "", error(nil)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if holder, err = (&BenchmarkRunReconciler{Client: env.Client, APIReader: env.Client}).nodePoolHolder(ctx, probe); err == nil && holder == "" {
			return
		}
	}
	t.Errorf("the node pool is still held 30 s after the run failed: %q, %v", holder, err)
}
