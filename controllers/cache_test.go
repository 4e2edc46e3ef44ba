package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// startCache starts a cache with the manager's options on namespace.
func startCache(t *testing.T, ns string) cache.Cache {
	t.Helper()
	opts := CacheOptions(ns)
	opts.Scheme = scheme.Scheme
	c, err := cache.New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	return c
}

func deployment(ns, name string, l map[string]string) *appsv1.Deployment {
	sel := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: l},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c:1"}}}}}}
}

// The manager's cache holds every tenant's objects of the kinds it caches, under one
// memory limit: it caches only the Deployments (and Services, Clusters) the operator
// created, and no cached object keeps its managedFields or kubectl's last-applied copy.
func TestManagerCacheHoldsOnlyWhatItReads(t *testing.T) {
	testenv.Long(t)
	const ns = "cache-scope"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	ours := deployment(ns, "ours", map[string]string{specs.LabelManagedBy: specs.ManagedBy})
	theirs := deployment(ns, "theirs", map[string]string{"app.kubernetes.io/managed-by": "someone-else"})
	run := pingRun("cache-scope")
	run.Namespace = ns
	run.Annotations = map[string]string{lastApplied: strings.Repeat("x", 100_000), "kept": "yes"}
	for _, o := range []client.Object{ours, theirs, run} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c := startCache(t, ns)
	deps := &appsv1.DeploymentList{}
	if err := c.List(ctx, deps, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range deps.Items {
		names = append(names, d.Name)
	}
	if len(names) != 1 || names[0] != "ours" {
		t.Errorf("cached Deployments %v: want only the operator's (ours)", names)
	}
	got := &benchv1.BenchmarkRun{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	if len(got.ManagedFields) != 0 || got.Annotations[lastApplied] != "" || got.Annotations["kept"] != "yes" {
		t.Errorf("cached run: %d managedFields, last-applied %d bytes, annotations %d: want none, none, and the others kept",
			len(got.ManagedFields), len(got.Annotations[lastApplied]), len(got.Annotations))
	}
}

// largeRun is the largest run the API accepts in its targets' env: targets × 32 values of
// 4 KiB.
func largeRun(ns, name string, targets int) *benchv1.BenchmarkRun {
	run := pingRun(name)
	run.Namespace = ns
	run.Spec.Targets = nil
	value := strings.Repeat("v", 4096)
	for i := range targets {
		tg := benchv1.Target{Name: fmt.Sprintf("t%d", i), Preset: "go-nethttp"}
		for j := range 32 {
			tg.Env = append(tg.Env, benchv1.EnvVar{Name: fmt.Sprintf("E%d", j), Value: value})
		}
		run.Spec.Targets = append(run.Spec.Targets, tg)
	}
	return run
}

// The manager's heap for N large runs (GAUNTLET_CACHE_RUNS, default 20): what its cache
// holds per run, to set against its memory limit. Runs only when asked (it writes
// N × 1.3 MB through the API server).
func TestManagerCacheMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GAUNTLET_CACHE_RUNS"))
	if n == 0 {
		t.Skip("set GAUNTLET_CACHE_RUNS to the number of large runs to create")
	}
	const ns = "cache-memory"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	size := 0
	for i := range n {
		run := largeRun(ns, fmt.Sprintf("large-%d", i), 10)
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if i == 0 {
			raw, _ := runtimeEncode(run)
			size = len(raw)
		}
	}
	t.Logf("created %d runs of %d bytes each in %v", n, size, time.Since(start).Round(time.Second))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := startCache(t, ns)
	if _, err := c.GetInformer(ctx, &benchv1.BenchmarkRun{}); err != nil {
		t.Fatal(err)
	}
	list := &benchv1.BenchmarkRunList{}
	if err := c.List(ctx, list, client.InNamespace(ns)); err != nil || len(list.Items) != n {
		t.Fatalf("cached %d runs (%v): want %d", len(list.Items), err, n)
	}
	list = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the cache of %d runs of %d bytes: heap %d bytes (%.1f MiB), %.2f MiB per run; 100 runs: %.0f MiB",
		n, size, grown, float64(grown)/(1<<20), float64(grown)/float64(n)/(1<<20), float64(grown)/float64(n)*100/(1<<20))
	runtime.KeepAlive(c)
}

func runtimeEncode(o client.Object) ([]byte, error) { return json.Marshal(o) }
