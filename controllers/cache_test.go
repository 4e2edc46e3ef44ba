package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
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
	run.Annotations = map[string]string{lastApplied: strings.Repeat("x", 100_000), "example.com/notes": strings.Repeat("n", 100_000),
		benchv1.AnnotationScheduledAt: "2026-01-02T03:04:05Z"}
	run.Labels = map[string]string{"example.com/team": "a", benchv1.LabelSchedule: "nightly"}
	sched := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "cache-scope", Namespace: ns,
		Labels:      map[string]string{"example.com/team": "a"},
		Annotations: map[string]string{"example.com/notes": strings.Repeat("n", 100_000), benchv1.AnnotationRunNow: "1"}},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "@daily", Template: benchv1.BenchmarkRunTemplate{Spec: run.Spec}}}
	for _, o := range []client.Object{ours, theirs, run, sched} {
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
	// Only the metadata the operator reads: a tenant's labels and annotations are the API
	// server's to bound (256 KiB of annotations, labels up to the object's limit).
	if len(got.ManagedFields) != 0 || len(got.Annotations) != 1 || got.Annotations[benchv1.AnnotationScheduledAt] == "" ||
		len(got.Labels) != 1 || got.Labels[benchv1.LabelSchedule] != "nightly" {
		t.Errorf("cached run: %d managedFields, annotations %v, labels %v: want none, only %s, only %s",
			len(got.ManagedFields), keys(got.Annotations), keys(got.Labels), benchv1.AnnotationScheduledAt, benchv1.LabelSchedule)
	}
	gotSched := &benchv1.BenchmarkSchedule{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(sched), gotSched); err != nil {
		t.Fatal(err)
	}
	if len(gotSched.Labels) != 0 || len(gotSched.Annotations) != 1 || gotSched.Annotations[benchv1.AnnotationRunNow] != "1" {
		t.Errorf("cached schedule: annotations %v, labels %v: want only %s", keys(gotSched.Annotations), keys(gotSched.Labels), benchv1.AnnotationRunNow)
	}
	// The API server still has every one of them.
	fresh := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), fresh); err != nil || fresh.Labels["example.com/team"] != "a" {
		t.Errorf("the run's own labels on the API server: %v (%v)", fresh.Labels, err)
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// largestRun is the largest run the API accepts, as far as its bounds allow: 32 scenarios
// of 8 requests (the run's 256, their paths and bodies filling its 32 KiB), 4 image
// targets (the most the trial bound leaves with 32 scenarios) whose 128 env variables
// fill the run's 32 KiB of env names and values, 16 node pools sharing the run's 64
// selector entries and tolerations at their bounds, and a database with 64 + 32
// parameters at theirs. Metadata is the API server's to bound and is left small.
func largestRun(ns, name string) *benchv1.BenchmarkRun {
	run := pingRun(name)
	run.Namespace = ns
	pad := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	one, seconds := int32(1), int64(math.MaxInt64)
	s := &run.Spec
	s.Load = benchv1.Load{Rates: []int32{1_000_000}, Warmup: "1s", Duration: "1s", Repetitions: 1,
		RequestTimeout: "1s", MaxVUs: &one}
	s.Scenarios = nil
	for i := range 32 {
		sc := benchv1.Scenario{Name: pad(fmt.Sprintf("s%d-", i), 40)}
		for j := range 8 {
			sc.Requests = append(sc.Requests, benchv1.Request{Method: "DELETE", Path: pad(fmt.Sprintf("/%d/%d/", i, j), 128),
				Weight: 1_000_000, ExpectStatus: 599})
		}
		s.Scenarios = append(s.Scenarios, sc)
	}
	s.NodePools = nil
	for i := range 16 {
		p := benchv1.NodePool{Name: pad(fmt.Sprintf("p%d-", i), 63), NodeSelector: map[string]string{}, HourlyPrice: "1234567890.12345"}
		for j := range 2 {
			key := pad(fmt.Sprintf("k%d.", j), 253) + "/" + pad("n", 63)
			p.NodeSelector[key] = pad("v", 63)
			p.Tolerations = append(p.Tolerations, benchv1.Toleration{Key: pad(fmt.Sprintf("t%d-", j), 253),
				Operator: "Equal", Value: pad("v", 63), Effect: "PreferNoSchedule", TolerationSeconds: &seconds})
		}
		s.NodePools = append(s.NodePools, p)
	}
	s.Targets = nil
	port := int32(65535)
	for i := range 4 {
		tg := benchv1.Target{Name: pad(fmt.Sprintf("t%d-", i), 40), Image: pad("registry.example/", 512), Port: &port,
			Workers: 256, NodePool: s.NodePools[0].Name}
		for j := range 32 {
			tg.Env = append(tg.Env, benchv1.EnvVar{Name: pad(fmt.Sprintf("E%d_%d_", i, j), 128), Value: pad("v", 128)})
		}
		s.Targets = append(s.Targets, tg)
	}
	s.LoadGenerator = benchv1.LoadGenerator{NodePool: s.NodePools[1].Name, Image: pad("registry.example/k6:", 512)}
	s.Database = &benchv1.Database{StorageClass: pad("sc", 253), Parameters: map[string]string{},
		Pooler: benchv1.Pooler{Parameters: map[string]string{}}}
	for i := range 64 {
		s.Database.Parameters[pad(fmt.Sprintf("p%d_", i), 63)] = pad("v", 256)
	}
	for i := range 32 {
		s.Database.Pooler.Parameters[pad(fmt.Sprintf("b%d_", i), 63)] = pad("v", 256)
	}
	return run
}

// The bounds above are the API's: the largest run is accepted, and its size is what the
// manager's cache holds per run at most (metadata aside).
func TestLargestRunIsAccepted(t *testing.T) {
	testenv.Long(t)
	const ns = "largest-run"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	run := largestRun(ns, "largest")
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatalf("the largest run the bounds allow is refused: %v", err)
	}
	run.ManagedFields = nil // not cached
	raw, _ := runtimeEncode(run)
	spec, _ := json.Marshal(run.Spec)
	t.Logf("the largest run: %d bytes of JSON as cached, its spec %d", len(raw), len(spec))
	if len(raw) > 160<<10 {
		t.Errorf("the largest run is %d bytes: want at most 160 KiB", len(raw))
	}
}

// The manager's heap for N of the largest runs (GAUNTLET_CACHE_RUNS): what its cache holds
// per run, to set against its memory limit. Runs only when asked.
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
		run := largestRun(ns, fmt.Sprintf("large-%d", i))
		withLargeMetadata(run)
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if i == 0 {
			run.ManagedFields = nil // not cached
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

// withLargeMetadata gives a run what the API server allows a tenant in metadata: 255 KiB of
// annotations (its limit is 256 KiB) and 8,000 labels of 63-character values (labels have
// no total limit short of the object's), about 1 MB in all.
func withLargeMetadata(run *benchv1.BenchmarkRun) {
	run.Annotations = map[string]string{"example.com/notes": strings.Repeat("n", 255<<10)}
	run.Labels = map[string]string{}
	for i := range 8000 {
		run.Labels[fmt.Sprintf("l%05d.example.com/k", i)] = strings.Repeat("v", 63)
	}
}

// A cluster-wide cache with excluded namespaces (a namespaced install serves them) holds
// nothing of theirs, the operator's own Deployments included, and every other namespace's
// objects as before; cluster-scoped kinds are still listed.
func TestCacheLeavesExcludedNamespacesOut(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const served, excluded = "cache-served", "cache-excluded"
	for _, ns := range []string{served, excluded} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		run := pingRun("cache-" + ns)
		run.Namespace = ns
		ours := deployment(ns, "ours", map[string]string{specs.LabelManagedBy: specs.ManagedBy})
		for _, o := range []client.Object{run, ours} {
			if err := env.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts := WithoutNamespaces(CacheOptions(), excluded)
	opts.Scheme = scheme.Scheme
	c, err := cache.New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = c.Start(cctx) }()
	if !c.WaitForCacheSync(cctx) {
		t.Fatal("cache did not sync")
	}
	runs := &benchv1.BenchmarkRunList{}
	if err := c.List(ctx, runs); err != nil {
		t.Fatal(err)
	}
	var inServed, inExcluded int
	for _, r := range runs.Items {
		switch r.Namespace {
		case served:
			inServed++
		case excluded:
			inExcluded++
		}
	}
	if inServed != 1 || inExcluded != 0 {
		t.Errorf("cached runs: %d in %s, %d in %s: want 1 and 0", inServed, served, inExcluded, excluded)
	}
	for ns, want := range map[string]int{served: 1, excluded: 0} {
		deps := &appsv1.DeploymentList{}
		if err := c.List(ctx, deps, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(deps.Items) != want {
			t.Errorf("cached Deployments in %s: %d, want %d", ns, len(deps.Items), want)
		}
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: excluded, Name: "cache-" + excluded}, &benchv1.BenchmarkRun{}); err == nil {
		t.Errorf("the excluded namespace's run read through the cache")
	}
	if err := c.List(ctx, &corev1.NodeList{}); err != nil {
		t.Errorf("nodes (cluster-scoped) through the cache: %v", err)
	}
}
