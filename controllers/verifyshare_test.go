package controllers

import (
	"context"
	"fmt"
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

// One tenant's many runs against targets that stall every check take at most their
// namespace's share of the operator's verification slots: their waiting runs say so in
// TargetsVerified, and another namespace's run is verified at once. Without the
// per-namespace cap, tenant a's runs held both slots and tenant b's run waited until one
// of their stalled checks gave up (40 s here, up to --verify-timeout).
func TestOneNamespaceDoesNotDelayAnothersVerification(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const a, b = "verify-share-a", "verify-share-b"
	for _, ns := range []string{a, b} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	stop, err := startManager(env.Config, []string{a, b}, func(r *BenchmarkRunReconciler) {
		r.MaxVerifications, r.MaxVerificationsPerNamespace = 2, 1
		r.Timeouts.Verify = 10 * time.Minute // the stalled checks outlast the test
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	stall := stallServer(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	create := func(run *benchv1.BenchmarkRun) {
		fakes.script(run.Name, &k6Outcome{hold: hold})
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	}

	var stalled []*benchv1.BenchmarkRun
	for i := range 3 {
		run := pingRun(fmt.Sprintf("stalled-%d", i))
		run.Namespace = a
		urlsMu.Lock()
		urls[a+"/"+run.Name+"/go"] = stall.URL
		urlsMu.Unlock()
		create(run)
		stalled = append(stalled, run)
	}
	waiting := 0
	for _, run := range stalled {
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
			return meta.IsStatusConditionPresentAndEqual(r.Status.Conditions, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown)
		})
		if msg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionTargetsVerified).Message; strings.Contains(msg, "waiting") {
			waiting++
			if !strings.Contains(msg, "namespace "+a+"'s 1 verification slots") || !strings.Contains(msg, "--max-concurrent-verifications-per-namespace") {
				t.Errorf("%s waits, but its condition does not say for its namespace's slot: %s", run.Name, msg)
			}
		}
	}
	if waiting < 2 {
		t.Errorf("%d of tenant a's 3 runs wait for a slot: want 2 (one slot for the namespace)", waiting)
	}

	prompt := pingRun("prompt")
	prompt.Namespace = b
	start := time.Now()
	create(prompt)
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(prompt), 15*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionTargetsVerified)
	})
	t.Logf("tenant b's run verified %v after its creation, beside tenant a's 3 stalled runs: %s", time.Since(start).Round(time.Second),
		meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionTargetsVerified).Message)
}
