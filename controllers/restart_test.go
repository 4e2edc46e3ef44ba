package controllers

import (
	"context"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// fixedMeasurer returns figures derived from the trial's test id without the run's UID
// (specs.TestID ends in it), so two runs of the same spec give identical results whatever
// the timing.
type fixedMeasurer struct{}

func (fixedMeasurer) Measure(_ context.Context, q metrics.TrialQuery, _ time.Time) (benchv1.Measurement, string, error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(q.TestID[:strings.LastIndexByte(q.TestID, '-')]))
	v := int64(h.Sum32() % 1000)
	return benchv1.Measurement{Requests: 10000 + v, AchievedMilliRPS: 100000, P50Micros: 1000 + v, P90Micros: 2000 + v,
		P95Micros: 3000 + v, P99Micros: 4000 + v, P999Micros: 5000 + v, MaxMicros: 6000 + v}, "", nil
}

// The manager is stopped and started again at every boundary (run phase or trial phase);
// the run completes with the same TestRuns, each created once, and the same results as
// the same run without restarts.
func TestRestartAtEveryBoundary(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	outcome := func(ns string) (*benchv1.BenchmarkRun, []string) {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		run := pingRun("restarts")
		run.Namespace = ns
		run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaPooler}
		run.Spec.Load.Rates, run.Spec.Load.Repetitions = []int32{100, 200}, 2
		fakes.script(run.Name, &k6Outcome{})
		start := func() func() error {
			stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) { r.Metrics = fixedMeasurer{} })
			if err != nil {
				t.Fatal(err)
			}
			return stop
		}
		stop := start()
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		restarts, last := 0, ""
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 90*time.Second, func(r *benchv1.BenchmarkRun) bool {
			sig := string(r.Status.Phase)
			for _, tr := range r.Status.Trials {
				sig += "," + string(tr.Phase)
			}
			if ns == "with-restarts" && sig != last && !finished(r) {
				last = sig
				if err := stop(); err != nil {
					t.Fatal(err)
				}
				stop = start()
				restarts++
			}
			return finished(r)
		})
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d restarts, phase %s", ns, restarts, got.Status.Phase)
		return got, fakes.testRunsSeen(ns)
	}
	plain, plainTRs := outcome("without-restarts")
	restarted, restartedTRs := outcome("with-restarts")
	if plain.Status.Phase != benchv1.PhaseSucceeded || restarted.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phases %s and %s", plain.Status.Phase, restarted.Status.Phase)
	}
	names := func(seen []string) (out []string) {
		for _, s := range seen {
			out = append(out, s[:strings.Index(s, "/")])
		}
		return out
	}
	if len(plainTRs) != 4 || !reflect.DeepEqual(names(plainTRs), names(restartedTRs)) {
		t.Errorf("TestRuns (name/uid): without restarts %v, with %v", plainTRs, restartedTRs)
	}
	if !reflect.DeepEqual(plain.Status.Results, restarted.Status.Results) || len(plain.Status.Results) != 2 {
		t.Errorf("results differ:\n%+v\n%+v", plain.Status.Results, restarted.Status.Results)
	}
	for i := range plain.Status.Trials {
		a, b := plain.Status.Trials[i], restarted.Status.Trials[i]
		if a.Name != b.Name || !reflect.DeepEqual(a.Result, b.Result) {
			t.Errorf("trial %d: %+v vs %+v", i, a, b)
		}
	}
}
