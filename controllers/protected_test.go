package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A cluster-wide install serves no run in a protected namespace (kube-system): the run
// fails before it creates anything, its Accepted condition and a Warning event naming the
// namespace; a run of an ordinary namespace served by the same manager goes ahead.
func TestRunsInProtectedNamespacesAreRefused(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const tenant = "protected-tenant"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{"kube-system", tenant}, func(r *BenchmarkRunReconciler) {
		r.ProtectedNamespaces = []string{"kube-system", "kube-public", "kube-node-lease", "gauntlet-system"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })

	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	system, own := pingRun("in-kube-system"), pingRun("in-own-namespace")
	system.Namespace, own.Namespace = "kube-system", tenant
	for _, run := range []*benchv1.BenchmarkRun{system, own} {
		fakes.script(run.Name, &k6Outcome{hold: hold})
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	}

	got := waitOn(t, env.Client, client.ObjectKeyFromObject(system), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseFailed
	})
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionAccepted)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonProtectedNamespace || !strings.Contains(c.Message, "kube-system") {
		t.Errorf("Accepted = %+v: want False, reason %s, naming kube-system", c, benchv1.ReasonProtectedNamespace)
	}
	if got.Status.StartedAt != nil || len(got.Status.Trials) != 0 {
		t.Errorf("the refused run started (startedAt %v, %d trials)", got.Status.StartedAt, len(got.Status.Trials))
	}
	deps := &appsv1.DeploymentList{}
	if err := env.Client.List(ctx, deps, client.InNamespace("kube-system"), client.MatchingLabels{specs.LabelRun: system.Name}); err != nil {
		t.Fatal(err)
	}
	if len(deps.Items) > 0 {
		t.Errorf("the refused run deployed %d targets in kube-system", len(deps.Items))
	}
	waitEvent(t, "kube-system", system.Name, benchv1.ReasonProtectedNamespace, "kube-system")

	waitOn(t, env.Client, client.ObjectKeyFromObject(own), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionAccepted)
	})
}

// A namespaced install serves the namespace it was given, whatever its name.
func TestProtectedNamespacesAreClusterWideOnly(t *testing.T) {
	r := &BenchmarkRunReconciler{ProtectedNamespaces: []string{"kube-system", "gauntlet-system"}}
	if why := r.protectedNamespace("kube-system"); !strings.Contains(why, "kube-system") {
		t.Errorf("cluster-wide, kube-system: %q, want a refusal naming it", why)
	}
	if why := r.protectedNamespace("tenant-a"); why != "" {
		t.Errorf("cluster-wide, tenant-a: refused (%s)", why)
	}
	r.WatchNamespace = "gauntlet-system"
	if why := r.protectedNamespace("gauntlet-system"); why != "" {
		t.Errorf("namespaced install of gauntlet-system: refused (%s)", why)
	}
}

// waitEvent waits for an event on the object named name in ns, with reason and a note
// containing want.
func waitEvent(t *testing.T, ns, name, reason, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var events eventsv1.EventList
		if err := env.Client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Regarding.Name == name && e.Reason == reason && strings.Contains(e.Note, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event naming %q for %s/%s", reason, want, ns, name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
