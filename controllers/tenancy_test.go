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

// Node-pool locks across tenants. An operator serving every namespace makes a run wait for
// an earlier run of another namespace on the same nodes, without naming that run or its
// namespace. Operators installed per namespace (--watch-namespace) lock within their own
// namespace only: each tenant's runs go ahead.
func TestNodePoolLocksAndTenants(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	for _, ns := range []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	hold := make(chan struct{})
	defer close(hold)
	onPool := func(ns, name string) *benchv1.BenchmarkRun {
		run := pingRun(name)
		run.Namespace = ns
		run.Spec.NodePools = []benchv1.NodePool{{Name: "shared-" + ns, NodeSelector: map[string]string{"gauntlet.test/pool": "tenants"}}}
		run.Spec.Targets[0].NodePool = "shared-" + ns
		fakes.script(name, &k6Outcome{hold: hold})
		return run
	}
	start := func(namespaces []string, watch string) {
		stop, err := startManager(env.Config, namespaces, func(r *BenchmarkRunReconciler) { r.WatchNamespace = watch })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = stop() })
	}
	loading := func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].TestRun != ""
	}

	t.Run("cluster-wide", func(t *testing.T) {
		start([]string{"tenant-a", "tenant-b"}, "")
		first, second := onPool("tenant-a", "secret-project-x"), onPool("tenant-b", "tenant-b-run")
		if err := env.Client.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		waitOn(t, env.Client, client.ObjectKeyFromObject(first), 30*time.Second, loading)
		time.Sleep(1100 * time.Millisecond) // creation timestamps have whole seconds
		if err := env.Client.Create(ctx, second); err != nil {
			t.Fatal(err)
		}
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
			return meta.IsStatusConditionFalse(r.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
		})
		msg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionNodePoolsAvailable).Message
		for _, secret := range []string{"tenant-a", "secret-project-x", "shared-tenant-a"} {
			if strings.Contains(msg, secret) {
				t.Errorf("the lock message names another tenant's %q: %s", secret, msg)
			}
		}
		if !strings.Contains(msg, "another namespace") || !strings.Contains(msg, "shared-tenant-b") {
			t.Errorf("the lock message does not say why in this run's terms: %s", msg)
		}
		t.Log(msg)
		_ = env.Client.Delete(ctx, first)
		_ = env.Client.Delete(ctx, second)
	})
	t.Run("namespaced", func(t *testing.T) {
		start([]string{"tenant-c"}, "tenant-c")
		start([]string{"tenant-d"}, "tenant-d")
		first, second := onPool("tenant-c", "tenant-c-run"), onPool("tenant-d", "tenant-d-run")
		if err := env.Client.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		waitOn(t, env.Client, client.ObjectKeyFromObject(first), 30*time.Second, loading)
		time.Sleep(1100 * time.Millisecond)
		if err := env.Client.Create(ctx, second); err != nil {
			t.Fatal(err)
		}
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, loading)
		if !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionNodePoolsAvailable) {
			t.Errorf("NodePoolsAvailable %+v", meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionNodePoolsAvailable))
		}
		_ = env.Client.Delete(ctx, first)
		_ = env.Client.Delete(ctx, second)
	})
}

// A bring-your-own image outside the operator's registry allow-list is refused before
// anything is created, naming the field.
func TestRegistryAllowList(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "allowlist"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Config.AllowedRegistries = []string{"ghcr.io/acme"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	run := pingRun("foreign-image")
	run.Namespace = ns
	port := int32(8080)
	run.Spec.Targets = append(run.Spec.Targets, benchv1.Target{Name: "mine", Image: "ghcr.io/acme-evil/app:1", Port: &port})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
	cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionAccepted)
	if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != benchv1.ReasonImageNotAllowed ||
		!strings.HasPrefix(cond.Message, "spec.targets[1].image: ") || !strings.Contains(cond.Message, "ghcr.io/acme") {
		t.Fatalf("phase %s, Accepted %+v", got.Status.Phase, cond)
	}
	if left := createdObjects(t, got); len(left) > 0 || got.Status.StartedAt != nil {
		t.Errorf("created before refusing: %v", left)
	}
	_ = env.Client.Delete(ctx, got)
}
