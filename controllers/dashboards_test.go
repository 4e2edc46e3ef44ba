package controllers

import (
	"context"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/dashboards"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Every panel query of dashboards/, with its variables substituted, returns data from a
// real Prometheus holding real series: a BenchmarkRun runs through the operator (real k6
// remote-writing its native histograms, cAdvisor's series from the real target process),
// then Prometheus scrapes the operator's result metrics from the reconciler's store. The
// scraped figures equal the run's status, and deleting the run removes its series.
func TestDashboardQueriesReturnData(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "dashboards"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	store := opmetrics.NewStore()
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) { r.ResultMetrics = store })
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()

	// The shortened seed, open model (an offered rate to compare with) on a priced pool
	// (a cost per million requests), one scenario.
	run := seedRun(t, "dash", ns)
	run.Spec.Scenarios = run.Spec.Scenarios[:1]
	run.Spec.Load.Model, run.Spec.Load.Rates, run.Spec.Load.Connections = benchv1.LoadModelOpen, []int32{400}, nil
	run.Spec.NodePools = []benchv1.NodePool{{Name: "amd", HourlyPrice: "0.17"}}
	run.Spec.Targets[0].NodePool = "amd"
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 180*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Results) != 1 {
		t.Fatalf("phase %s, %d rows: %+v", got.Status.Phase, len(got.Status.Results), got.Status.Conditions)
	}
	row := got.Status.Results[0]

	// Prometheus scrapes the store as it would scrape the manager's metrics endpoint.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(store)
	// The schedule history dashboard reads a schedule's series: one schedule of this run's
	// row, its newest figures and a change point each way (controllers/schedule's tests
	// check how the schedule controller fills them).
	schedules := opmetrics.NewScheduleStore()
	reg.MustRegister(schedules)
	schedules.Observe(dashboardSchedule(ns, run.Name, got.Status.StartedAt.Time), []history.Row{{
		Key:    history.Key{Target: "go", Scenario: "ping", LoadPoint: 400},
		Values: map[string]float64{history.FigureP50: 500, history.FigureP99: 1500, history.FigureCPU: 400, history.FigureCapacity: 2000}}})
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	if err := prom.Scrape("gauntlet-manager", strings.TrimPrefix(srv.URL, "http://")); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = prom.Scrape("gauntlet-manager", "") }()
	pc, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	papi := promv1.NewAPI(pc)
	instant := func(expr string) model.Vector {
		v, _, _, err := papi.Query(ctx, expr, time.Now())
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v.(model.Vector)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(instant(`gauntlet_result_valid{namespace="dashboards",run="dash"}`)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Prometheus has no gauntlet_result_valid 30 s after the scrape started")
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Range queries step every 5 s up to now: let the scrape cover more than one step.
	time.Sleep(6 * time.Second)
	// What Prometheus holds is the status, in base units.
	for expr, want := range map[string]float64{
		`gauntlet_result_latency_seconds{run="dash",percentile="p99"}`:             float64(row.P99Micros.Median) / 1e6,
		`gauntlet_result_achieved_requests_per_second{run="dash"}`:                 float64(row.AchievedMilliRPS.Median) / 1e3,
		`gauntlet_result_offered_requests_per_second{run="dash"}`:                  400,
		`gauntlet_result_memory_bytes{run="dash"}`:                                 float64(row.MemoryBytes.Median),
		`gauntlet_result_cost_usd_per_million_requests{run="dash"}`:                float64(*row.CostMicroUSDPerMillion) / 1e6,
		`gauntlet_benchmarkrun_phase{run="dash",phase="Succeeded"}`:                1,
		`gauntlet_benchmarkrun_trials_finished{run="dash"}`:                        float64(len(got.Status.Trials)),
		`gauntlet_result_valid{run="dash"}`:                                        map[bool]float64{true: 1, false: 0}[row.Valid],
		`gauntlet_result_slo_verdict{run="dash",verdict="` + verdictOf(row) + `"}`: 1,
	} {
		v := instant(expr)
		if len(v) != 1 || math.Abs(float64(v[0].Value)-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s = %v, want %v", expr, v, want)
		}
	}

	vars := map[string]string{"namespace": ns, "run": run.Name, "schedule": "nightly", "target": "go", "scenario": "ping",
		"__rate_interval": "30s", "__interval": "5s"}
	rep, err := dashboards.Check(ctx, papi, vars, got.Status.StartedAt.Add(-time.Minute), time.Now(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if len(rep.Skipped) > 0 || len(rep.QuietAnnotations) > 0 {
		t.Errorf("dashboards skipped %v, annotations without marks %v: vars pick every variable here, and the schedule has a change point each way",
			rep.Skipped, rep.QuietAnnotations)
	}
	t.Logf("%d dashboards, %d panels, %d queries returned data", rep.Dashboards, rep.Panels, rep.Queries)

	// The run's series go with the run.
	if err := env.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(60 * time.Second)
	for testutil.CollectAndCount(store) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d series of the deleted run are still exported", testutil.CollectAndCount(store))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dashboardSchedule is a schedule named nightly whose history has a Slower and a Faster
// change point on go/ping@400 at run, at time at.
func dashboardSchedule(ns, run string, at time.Time) *benchv1.BenchmarkSchedule {
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"}}
	s.Status.HistoryRuns = 12
	t := metav1.NewTime(at)
	for _, c := range []struct {
		dir    string
		change int64
	}{{"Slower", 200_000}, {"Faster", -100_000}} {
		s.Status.ChangePoints = append(s.Status.ChangePoints, benchv1.ScheduleChangePoint{Target: "go", Scenario: "ping", LoadPoint: 400,
			Figure: "p50", Run: run, RunTime: &t, Direction: c.dir, ChangePPM: c.change, MagnitudePPM: 200_000, PValue: "0.0010", Recent: true, DetectedAt: t})
	}
	return s
}

func verdictOf(r benchv1.ResultRow) string {
	if r.SLO == "" {
		return string(benchv1.VerdictNone)
	}
	return string(r.SLO)
}
