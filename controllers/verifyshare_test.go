package controllers

import (
	"context"
	"fmt"
	"net/http/httptest"
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
	const a, b = "verify-share-a", "verify-share-b"
	stall, create := stalledVerifications(t, 2, 1, a, b)

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

// Two namespaces at their cap fill the operator's slots and each has more runs waiting;
// a third namespace's run waits too. When a slot frees (one of tenant a's stalled runs is
// deleted: its checks give their slot back at once), it goes to the third namespace's
// run (which then stalls too, keeping it), not to tenant a's next run: a already holds
// its fair share (4 slots among 3 namespaces: 1). Without fair sharing, whichever asked
// first took it, most often one of a's 3 waiting runs.
func TestWaitingNamespaceGetsTheNextSlot(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const a, b, c = "verify-fair-a", "verify-fair-b", "verify-fair-c"
	stall, create := stalledVerifications(t, 4, 2, a, b, c)
	verifying := func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionPresentAndEqual(r.Status.Conditions, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown)
	}
	message := func(r *benchv1.BenchmarkRun) string {
		return meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionTargetsVerified).Message
	}

	// Tenants a and b: 5 stalled runs each, 2 checked, 3 waiting for their namespace's cap.
	var holdingA *benchv1.BenchmarkRun
	waitingA := map[string]bool{}
	for _, ns := range []string{a, b} {
		for i := range 5 {
			run := pingRun(fmt.Sprintf("stalled-%d", i))
			run.Namespace = ns
			urlsMu.Lock()
			urls[ns+"/"+run.Name+"/go"] = stall.URL
			urlsMu.Unlock()
			create(run)
		}
	}
	for _, ns := range []string{a, b} {
		checked := 0
		for i := range 5 {
			key := client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("stalled-%d", i)}
			got := waitOn(t, env.Client, key, 30*time.Second, verifying)
			if strings.Contains(message(got), "checking against the contract") {
				checked++
				if ns == a && holdingA == nil {
					holdingA = got
				}
			} else if ns == a {
				waitingA[got.Name] = true
			}
		}
		if checked != 2 {
			t.Fatalf("%d of tenant %s's runs are checked, want 2 (its cap)", checked, ns)
		}
	}

	// Tenant c's run waits for one of the operator's 4 slots, all held.
	prompt := pingRun("prompt")
	prompt.Namespace = c
	urlsMu.Lock()
	urls[c+"/"+prompt.Name+"/go"] = stall.URL // once it has a slot, it keeps it
	urlsMu.Unlock()
	create(prompt)
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(prompt), 15*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return verifying(r) && strings.Contains(message(r), "waiting for one of the operator's 4 verification slots")
	})
	t.Logf("tenant c waits: %s", message(got))

	start := time.Now()
	if err := env.Client.Delete(ctx, holdingA); err != nil {
		t.Fatal(err)
	}
	got = waitOn(t, env.Client, client.ObjectKeyFromObject(prompt), 15*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return verifying(r) && strings.Contains(message(r), "checking against the contract")
	})
	t.Logf("tenant c's run checked %v after tenant a's run was deleted: %s", time.Since(start).Round(100*time.Millisecond), message(got))
	for name := range waitingA {
		got := waitOn(t, env.Client, client.ObjectKey{Namespace: a, Name: name}, 15*time.Second, verifying)
		if strings.Contains(message(got), "checking against the contract") {
			t.Errorf("tenant a's run %s took the freed slot before tenant c: %s", name, message(got))
		}
	}
}

// stalledVerifications makes the namespaces and starts a manager watching them with the
// given verification caps, whose checks against stall never finish within the test; create
// starts a run whose k6 is held until the test ends.
func stalledVerifications(t *testing.T, total, perNS int, namespaces ...string) (*httptest.Server, func(*benchv1.BenchmarkRun)) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range namespaces {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	stop, err := startManager(env.Config, namespaces, func(r *BenchmarkRunReconciler) {
		r.MaxVerifications, r.MaxVerificationsPerNamespace = total, perNS
		r.Timeouts.Verify = 10 * time.Minute // the stalled checks outlast the test
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	stall := stallServer(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	return stall, func(run *benchv1.BenchmarkRun) {
		fakes.script(run.Name, &k6Outcome{hold: hold})
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	}
}
