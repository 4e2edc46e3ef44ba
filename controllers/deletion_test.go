package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Deleting a run while its TestRun loads a target stops the TestRun and leaves none of the
// objects it created, every kind listed (there is no garbage collector in envtest: the
// finalizer does it).
func TestDeleteMidRunLeavesNothing(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := pingRun("delete-mid-run")
	run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaPooler}
	hold := make(chan struct{})
	defer close(hold)
	fakes.script(run.Name, &k6Outcome{hold: hold})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseRunning && len(r.Status.Trials) > 0 && r.Status.Trials[0].MeasureStart != nil
	})
	created := strings.Join(createdObjects(t, got), " ")
	for _, kind := range []string{"TestRun/", "ConfigMap/", "Deployment/", "Service/", "Pooler/", "Cluster/"} {
		if !strings.Contains(created, kind) {
			t.Fatalf("no %s among the run's objects before deletion: %s", kind, created)
		}
	}
	// The target reaches PostgreSQL through the Pooler's Service, with credentials taken from
	// CloudNativePG's <cluster>-app Secret by reference.
	dep := &appsv1.Deployment{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: got.Namespace, Name: specs.TargetName(got, "go")}, dep); err != nil {
		t.Fatal(err)
	}
	vars := map[string]corev1.EnvVar{}
	for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
		vars[e.Name] = e
	}
	if ref := vars["DB_PASSWORD"].ValueFrom; ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != specs.ClusterName(got)+"-app" ||
		!strings.Contains(vars["DATABASE_URL"].Value, "@"+specs.PoolerName(got)+":5432/") {
		t.Errorf("database settings: DB_PASSWORD %+v, DATABASE_URL %q", vars["DB_PASSWORD"], vars["DATABASE_URL"].Value)
	}
	if err := env.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), &benchv1.BenchmarkRun{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still there: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if left := createdObjects(t, got); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Two runs on the same node pool never load it at once: the later waits, naming the run it
// waits for, and goes once that one is gone.
func TestNodePoolExclusivity(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	pools := []benchv1.NodePool{{Name: "amd", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}}}
	first, second := pingRun("pool-first"), pingRun("pool-second")
	second.Spec.NodePools = []benchv1.NodePool{{Name: "x86", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}}}
	second.Spec.Targets[0].NodePool = "x86" // the same nodes under another name
	first.Spec.NodePools, first.Spec.Targets[0].NodePool = pools, "amd"
	hold := make(chan struct{})
	defer close(hold)
	fakes.script(first.Name, &k6Outcome{hold: hold})
	fakes.script(second.Name, &k6Outcome{hold: hold})
	if err := env.Client.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitOn(t, env.Client, client.ObjectKeyFromObject(first), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].TestRun != ""
	})
	time.Sleep(1100 * time.Millisecond) // creation timestamps have whole seconds
	if err := env.Client.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		c := meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
		return c != nil && c.Status == metav1.ConditionFalse
	})
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
	if c.Reason != benchv1.ReasonWaitingForPool || !strings.Contains(c.Message, "default/pool-first") || !strings.Contains(c.Message, "kubernetes.io/arch=amd64") {
		t.Errorf("condition %+v does not name the run it waits for", c)
	}
	time.Sleep(time.Second)
	if again := waitFor(t, client.ObjectKeyFromObject(second), func(*benchv1.BenchmarkRun) bool { return true }); again.Status.Trials[0].TestRun != "" {
		t.Fatalf("the second run loads the pool while the first does: %+v", again.Status.Trials[0])
	}
	if err := env.Client.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitOn(t, env.Client, client.ObjectKeyFromObject(second), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Trials[0].TestRun != "" && meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionNodePoolsAvailable)
	})
	_ = env.Client.Delete(ctx, second)
}
