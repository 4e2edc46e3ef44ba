package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The node-pool lock is taken before anything is deployed: a second run whose selector is
// written differently but matches the same node deploys nothing (no target, no database, no
// contract check reaches its target) until the first run releases the pool.
func TestSecondRunOnAPoolDeploysNothingUntilTheFirstReleases(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pool-lock-node",
		Labels: map[string]string{"gauntlet.test/arch": "amd64", "gauntlet.test/size": "big"}}}
	if err := env.Client.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, node) })

	first, second := pingRun("lock-first"), pingRun("lock-second")
	first.Spec.NodePools = []benchv1.NodePool{{Name: "amd", NodeSelector: map[string]string{"gauntlet.test/arch": "amd64"}}}
	first.Spec.Targets[0].NodePool = "amd"
	second.Spec.NodePools = []benchv1.NodePool{{Name: "big", NodeSelector: map[string]string{"gauntlet.test/size": "big"}}}
	second.Spec.Targets[0].NodePool = "big"

	// The second run's target counts every request its contract checks send.
	var checks atomic.Int64
	up, _ := url.Parse(target.url)
	proxy := httputil.NewSingleHostReverseProxy(up)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		checks.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	urlsMu.Lock()
	urls[second.Namespace+"/"+second.Name+"/go"] = counting.URL
	urlsMu.Unlock()

	hold := make(chan struct{})
	defer close(hold)
	fakes.script(first.Name, &k6Outcome{hold: hold})
	fakes.script(second.Name, &k6Outcome{hold: hold})
	if err := env.Client.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, first) })
	waitOn(t, env.Client, client.ObjectKeyFromObject(first), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].TestRun != ""
	})
	time.Sleep(1100 * time.Millisecond) // creation timestamps have whole seconds
	if err := env.Client.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, second) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionFalse(r.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
	})
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
	if c.Reason != benchv1.ReasonWaitingForPool || !strings.Contains(c.Message, "default/lock-first") || !strings.Contains(c.Message, "pool-lock-node") {
		t.Errorf("condition %+v does not name the run and the node it waits for", c)
	}
	time.Sleep(3 * time.Second) // several passes of the waiting run
	if left := createdObjects(t, second); len(left) > 0 {
		t.Errorf("the waiting run deployed %v while the first holds the pool", left)
	}
	if n := checks.Load(); n != 0 {
		t.Errorf("the waiting run's contract checks sent %d requests while the first holds the pool", n)
	}
	again := waitFor(t, client.ObjectKeyFromObject(second), func(*benchv1.BenchmarkRun) bool { return true })
	for _, ts := range again.Status.Targets {
		if ts.Ready || ts.Verification == benchv1.VerificationPassed || ts.Verification == benchv1.VerificationFailed {
			t.Errorf("target %+v started while the pool is held", ts)
		}
	}

	if err := env.Client.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].TestRun != "" && meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
	})
	if checks.Load() == 0 {
		t.Error("the second run measured without checking its target")
	}
}
