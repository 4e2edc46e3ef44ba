package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// One reconcile worker, two runs: the first run's target stalls its contract checks (each
// request hangs until the verifier gives up), the second run's target answers. The second
// run goes through verification, its trial and Prometheus and succeeds while the first is
// still verifying: verification runs off the reconcile worker.
func TestStalledVerificationDoesNotBlockOtherRuns(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "nonblocking"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.MaxConcurrentReconciles = 1
		r.Timeouts.Verify = 10 * time.Minute // the stalled run stays in verification for the whole test
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	stall := stallServer(t)

	stalled, prompt := pingRun("stalled"), pingRun("prompt")
	stalled.Namespace, prompt.Namespace = ns, ns
	urlsMu.Lock()
	urls[ns+"/stalled/go"] = stall.URL
	urlsMu.Unlock()
	if err := env.Client.Create(ctx, stalled); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, stalled) })
	waitOn(t, env.Client, client.ObjectKeyFromObject(stalled), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionPresentAndEqual(r.Status.Conditions, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown)
	})
	if err := env.Client.Create(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, prompt) })
	done := waitOn(t, env.Client, client.ObjectKeyFromObject(prompt), 90*time.Second, finished)
	if done.Status.Phase != benchv1.PhaseSucceeded || len(done.Status.Results) != 1 {
		t.Fatalf("the prompt run: phase %s, results %+v, conditions %+v", done.Status.Phase, done.Status.Results, done.Status.Conditions)
	}
	still := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(stalled), still); err != nil {
		t.Fatal(err)
	}
	if still.Status.Phase != benchv1.PhaseVerifying || finished(still) {
		t.Errorf("the stalled run is %s, want still Verifying when the other finished", still.Status.Phase)
	}
	t.Logf("prompt run finished %v after it started; the stalled run is %s: %s", done.Status.FinishedAt.Sub(done.Status.StartedAt.Time),
		still.Status.Phase, meta.FindStatusCondition(still.Status.Conditions, benchv1.ConditionTargetsVerified).Message)
}
