package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// capacityModel is a target that keeps any rate up to capacity (p99 5 ms) and beyond it
// serves only capacity at 900 ms; above genLimit the busiest k6 runner uses 40% of its CPU.
func capacityModel(capacity, genLimit map[string]int32) func(*benchv1.BenchmarkRun, benchv1.Trial) benchv1.Measurement {
	return func(_ *benchv1.BenchmarkRun, t benchv1.Trial) benchv1.Measurement {
		rate, c := int64(t.LoadPoint), int64(capacity[t.Target])
		m := benchv1.Measurement{Requests: rate, AchievedMilliRPS: rate * 1000, P50Micros: 1000, P90Micros: 2000, P95Micros: 3000,
			P99Micros: 5000, P999Micros: 6000, MaxMicros: 7000, GeneratorCPUMillicores: 100, GeneratorCPULimitMillicores: 1000}
		if rate > c {
			m.AchievedMilliRPS, m.P99Micros, m.P999Micros, m.MaxMicros = c*1000, 900_000, 950_000, 990_000
		}
		if g := genLimit[t.Target]; g > 0 && t.LoadPoint > g {
			m.GeneratorCPUMillicores = 400
		}
		return m
	}
}

// A capacity search through the reconciler: steps planned pass by pass from the recorded
// trials, the answer in status.search (capacity within the width, cost at capacity), a
// generator that saturates first reported as a lower bound, the printer column's summary,
// a result row at the answer, and an event per step.
func TestCapacitySearchThroughTheReconciler(t *testing.T) {
	testenv.Long(t)
	ns := "capacity"
	startNamespace(t, ns, capacityModel(map[string]int32{"go": 480, "fast": 100_000}, map[string]int32{"fast": 1000}))
	run := pingRun("search")
	run.Namespace = ns
	run.Spec.Targets = []benchv1.Target{{Name: "go", Preset: "go-nethttp", NodePool: "c7g"}, {Name: "fast", Preset: "go-nethttp", NodePool: "c7g"}}
	run.Spec.NodePools = []benchv1.NodePool{{Name: "c7g", HourlyPrice: "0.36"}}
	run.Spec.Load = benchv1.Load{Warmup: "100ms", Duration: "300ms", Repetitions: 3,
		Search: &benchv1.Search{Start: 100, StepWarmup: "100ms", StepDuration: "200ms"}}
	run.Spec.SLO = &benchv1.SLO{P99: "50ms"}
	fakes.script(run.Name, &k6Outcome{})
	if err := env.Client.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 4*time.Minute, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Search) != 2 {
		t.Fatalf("phase %s, search %+v, conditions %+v", got.Status.Phase, got.Status.Search, got.Status.Conditions)
	}
	// The schema defaulted the search's settings.
	if s := got.Spec.Load.Search; s.Width != "0.05" || s.MaxSteps != 16 || s.Attempts != 3 || s.MaxRate != 1_000_000 {
		t.Fatalf("defaults: %+v", s)
	}
	goSearch, fastSearch := got.Status.Search[0], got.Status.Search[1]
	if goSearch.Target != "go" || goSearch.Phase != benchv1.SearchDone || goSearch.Bound != benchv1.BoundCapacity ||
		goSearch.CapacityRPS > 480 || goSearch.UpperRPS <= 480 || (goSearch.UpperRPS-goSearch.CapacityRPS)*20 > goSearch.CapacityRPS ||
		goSearch.PassedRepetitions != 3 || goSearch.Confidence != benchv1.ConfidenceHigh {
		t.Fatalf("go: %+v", goSearch)
	}
	if want := int64(360_000) * 1_000_000 / (int64(goSearch.CapacityRPS) * 3600); goSearch.CostMicroUSDPerMillion == nil || *goSearch.CostMicroUSDPerMillion != want {
		t.Fatalf("cost at capacity %v, want %d", goSearch.CostMicroUSDPerMillion, want)
	}
	if fastSearch.Bound != benchv1.BoundLower || fastSearch.CapacityRPS > 1000 || !strings.Contains(fastSearch.Message, "load generator saturated") {
		t.Fatalf("fast: %+v", fastSearch)
	}
	for _, want := range []string{"go/ping 4", "fast/ping >="} {
		if !strings.Contains(got.Status.Capacity, want) {
			t.Errorf("status.capacity %q lacks %q", got.Status.Capacity, want)
		}
	}
	// Every step names its trial, and the trials are the short steps and the repetitions.
	trials := map[string]benchv1.Trial{}
	for _, tr := range got.Status.Trials {
		trials[tr.Name] = tr
	}
	for _, st := range goSearch.Steps {
		tr, ok := trials[st.Trial]
		if !ok || tr.LoadPoint != st.RPS || tr.Short == (st.Kind == benchv1.StepConfirm) || st.Outcome == benchv1.StepPending {
			t.Fatalf("step %+v / trial %+v", st, tr)
		}
	}
	// The answer has a row of its own (full-length repetitions); short steps make none.
	var rows []string
	for _, r := range got.Status.Results {
		rows = append(rows, r.Target)
		if r.Target == "go" && (r.LoadPoint != goSearch.CapacityRPS || r.Repetitions != 3 || !r.Valid || r.SLO != benchv1.VerdictMet) {
			t.Fatalf("go row: %+v", r)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLOMet); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("SLOMet: %+v", c)
	}
	events := &eventsv1.EventList{}
	if err := env.Client.List(context.Background(), events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var searchEvents []string
	for _, e := range events.Items {
		if e.Reason == benchv1.ReasonSearchStep {
			searchEvents = append(searchEvents, e.Note)
		}
	}
	all := strings.Join(searchEvents, "\n")
	for _, want := range []string{"search go/ping: bracket 100/s Pass", "Fail (RateShortfall", "; done: 480/s", "; done: at least 1000/s: the load generator saturated"} {
		if !strings.Contains(all, want) {
			t.Errorf("no event %q in:\n%s", want, all)
		}
	}
	t.Logf("%s; go: %s", got.Status.Capacity, goSearch.Message)
}
