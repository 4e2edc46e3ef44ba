package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/nullresponder"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

const floorImage = "registry.example/gauntlet:floor-test"

// startFloorManager runs a manager for ns that deploys a null responder and plans the
// generator-floor trials; the floor's load goes to a real null responder (the handler
// `gauntlet null-responder` serves) on loopback.
// floorRun starts a floor-measuring manager for ns and returns a ping run named name there.
func floorRun(t *testing.T, ns, name string, tweak func(*BenchmarkRunReconciler)) *benchv1.BenchmarkRun {
	t.Helper()
	startFloorManager(t, ns, tweak)
	run := pingRun(name)
	run.Namespace = ns
	return run
}

func startFloorManager(t *testing.T, ns string, tweak func(*BenchmarkRunReconciler)) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	null := httptest.NewServer(nullresponder.Handler())
	t.Cleanup(null.Close)
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Config.NullResponderImage = floorImage
		r.NullResponderURL = func(*benchv1.BenchmarkRun, string) string { return null.URL }
		if tweak != nil {
			tweak(r)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
}

// slowTarget answers as the go target does, 50 ms later: far above any generator floor.
func slowTarget(t *testing.T) string {
	u, err := url.Parse(target.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			time.Sleep(50 * time.Millisecond)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// In the cluster as in the local mode, every scenario and load point gets a calibration
// trial against the null responder before the targets' trials; the rows carry its floor and
// are judged by it: GeneratorNoise exactly when k6's p99 is under NoiseFactor times the
// floor's (k6's figures are the record here: the cluster has no wire capture). A target
// 50 ms slow is clearly the target's.
func TestGeneratorFloorInTheCluster(t *testing.T) {
	testenv.Long(t)
	const ns = "floor"
	run := floorRun(t, ns, "floor", nil)
	ctx := context.Background()
	run.Spec.Targets = append(run.Spec.Targets, benchv1.Target{Name: "slow", Preset: "go-nethttp"})
	urlsMu.Lock()
	urls[ns+"/floor/slow"] = slowTarget(t)
	urlsMu.Unlock()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	// The null responder, seen while calibration runs (it is deleted once calibration is over).
	nullKey := client.ObjectKey{Namespace: ns, Name: specs.NullResponderName(run, "")}
	dep := &appsv1.Deployment{}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(c context.Context) (bool, error) {
		return env.Client.Get(c, nullKey, dep) == nil, nil
	}); err != nil {
		t.Fatalf("null responder Deployment never seen: %v", err)
	}
	if c := dep.Spec.Template.Spec.Containers[0]; c.Image != floorImage || !slices.Contains(c.Command, "null-responder") {
		t.Errorf("null responder container %s %v", c.Image, c.Command)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 150*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Trials) != 3 || len(got.Status.Results) != 2 {
		t.Fatalf("phase %s, trials %+v, results %+v, conditions %+v", got.Status.Phase, got.Status.Trials, got.Status.Results, got.Status.Conditions)
	}
	floor := got.Status.Trials[0]
	if !floor.Calibration || floor.Name != "floor-ping-100" || floor.Target != "null-responder" || floor.Phase != benchv1.TrialSucceeded ||
		floor.Result == nil || floor.Result.Requests == 0 || !strings.Contains(floor.Message, "generator floor") {
		t.Fatalf("first trial %+v: want the succeeded calibration trial against the null responder", floor)
	}

	// Calibration over, the null responder is gone while the run still exists: its CPU went
	// back to the targets' pool for their trials (one event says so).
	for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}} {
		if err := env.Client.Get(ctx, nullKey, o); !apierrors.IsNotFound(err) {
			t.Errorf("null responder %T after calibration: %v, want it deleted", o, err)
		}
	}
	events := &eventsv1.EventList{}
	if err := env.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, e := range events.Items {
		if e.Reason == benchv1.ReasonNullResponderRemoved && e.Regarding.Name == run.Name {
			removed++
		}
	}
	if removed != 1 {
		t.Errorf("%d %s events, want 1", removed, benchv1.ReasonNullResponderRemoved)
	}

	for _, row := range got.Status.Results {
		f := row.GeneratorFloor
		if f == nil || f.P99Micros != floor.Result.P99Micros || f.P50Micros != floor.Result.P50Micros {
			t.Fatalf("row %s: floor %+v, want the calibration trial's p50 %d / p99 %d", row.Target, f, floor.Result.P50Micros, floor.Result.P99Micros)
		}
		noise := results.GeneratorNoise(row.P99Micros.Median, f.P99Micros)
		if slices.Contains(row.Flags, results.FlagGeneratorNoise) != noise || row.LatencySource != benchv1.LatencyGenerator {
			t.Errorf("row %s: p99 %d vs floor p99 %d: flags %v, source %s; want GeneratorNoise %v with k6 as the record",
				row.Target, row.P99Micros.Median, f.P99Micros, row.Flags, row.LatencySource, noise)
		}
		t.Logf("%s: k6 p99 %s, floor p99 %s, flags %v", row.Target, results.FormatMicros(row.P99Micros.Median),
			results.FormatMicros(f.P99Micros), row.Flags)
	}
	// The slow row is the target's own latency, never the generator's noise. On a loaded
	// machine k6 itself can fall behind a 50 ms target (dropped iterations, a rate
	// shortfall): those flags may make it invalid, no other may.
	slow := got.Status.Results[1]
	if slow.Target != "slow" || slow.P99Micros.Median < 50000 || slices.Contains(slow.Flags, results.FlagGeneratorNoise) {
		t.Errorf("slow row %+v: want p99 at least 50 ms and no %s", slow, results.FlagGeneratorNoise)
	}
	for _, f := range slow.Flags {
		if f != results.FlagDroppedIterations && f != results.FlagRateShortfall {
			t.Errorf("slow row flagged %s (flags %v): only the generator's shortfall may invalidate it", f, slow.Flags)
		}
	}
	if !slow.Valid && len(slow.Flags) == 0 {
		t.Errorf("slow row invalid with no flag: %+v", slow)
	}
}

// A null responder that never becomes available costs the floor, not the run: the
// calibration trial is skipped with the Deployment and image named, the targets' trials
// run, and their rows have no floor.
func TestMissingNullResponderSkipsTheFloor(t *testing.T) {
	testenv.Long(t)
	const ns = "floor-missing"
	run := floorRun(t, ns, "nofloor", func(r *BenchmarkRunReconciler) { r.Timeouts.Targets = 3 * time.Second })
	ctx := context.Background()
	fakes.mu.Lock()
	fakes.depNever[ns+"/"+specs.NullResponderName(run, "")] = true
	fakes.mu.Unlock()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Trials) != 2 || len(got.Status.Results) != 1 {
		t.Fatalf("phase %s, trials %+v, conditions %+v", got.Status.Phase, got.Status.Trials, got.Status.Conditions)
	}
	floor := got.Status.Trials[0]
	if floor.Phase != benchv1.TrialSkipped || !strings.Contains(floor.Message, specs.NullResponderName(run, "")) ||
		!strings.Contains(floor.Message, floorImage) {
		t.Errorf("calibration trial %s %q: want Skipped naming the Deployment and image", floor.Phase, floor.Message)
	}
	if row := got.Status.Results[0]; row.GeneratorFloor != nil || got.Status.Trials[1].Phase != benchv1.TrialSucceeded {
		t.Errorf("row floor %+v, target trial %s", row.GeneratorFloor, got.Status.Trials[1].Phase)
	}
}

// A calibration trial that fails while its runners still load (the null responder edited
// under it) does not overlap the next trial: its TestRun goes before the target's starts.
func TestAFailedFloorTrialStopsBeforeTheNextTrial(t *testing.T) {
	testenv.Long(t)
	const ns = "floor-drift"
	run := floorRun(t, ns, "drift", nil)
	ctx := context.Background()
	run.Spec.Load.Warmup, run.Spec.Load.Duration = "2s", "4s" // long enough to edit it mid-trial
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })

	// Watch how many of the run's TestRuns exist at once, the whole time.
	most := 0
	watching, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for watching.Err() == nil {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(specs.TestRunGVK.GroupVersion().WithKind("TestRunList"))
			if env.Client.List(ctx, list, client.InNamespace(ns)) == nil {
				live := 0
				for _, tr := range list.Items {
					if tr.GetDeletionTimestamp() == nil {
						live++
					}
				}
				most = max(most, live)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].Phase == benchv1.TrialRunning
	})
	dep := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: ns, Name: specs.NullResponderName(run, "")}
	if err := env.Client.Get(ctx, key, dep); err != nil {
		t.Fatal(err)
	}
	dep.Spec.Template.Annotations = map[string]string{"edited": "mid-trial"}
	if err := env.Client.Update(ctx, dep); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
	stopWatch()
	<-watched
	floor := got.Status.Trials[0]
	if floor.Phase != benchv1.TrialFailed || !strings.Contains(floor.Message, "changed during the run") {
		t.Fatalf("calibration trial %s %q: want Failed for the edited null responder", floor.Phase, floor.Message)
	}
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Trials[1].Phase != benchv1.TrialSucceeded {
		t.Errorf("phase %s, target trial %s %q: a failed floor costs the floor only", got.Status.Phase,
			got.Status.Trials[1].Phase, got.Status.Trials[1].Message)
	}
	if most != 1 {
		t.Errorf("%d of the run's TestRuns existed at once: the failed floor trial's load overlapped the next trial's", most)
	}
}
