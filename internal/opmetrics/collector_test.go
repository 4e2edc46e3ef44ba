package opmetrics

import (
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func stat(median int64) benchv1.Stat {
	return benchv1.Stat{Median: median, Min: median - 1, Max: median + 1}
}

// finishedRun is a run with two targets at one open-model load point: the go row valid and
// measured in full, the node row flagged, with an unknown flag, and a free-form message.
func finishedRun() *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "seed-001"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}, {Name: "node", Image: "registry.example/node:1"}},
			Load:    benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{1000}},
		},
		Status: benchv1.BenchmarkRunStatus{
			Phase: benchv1.PhaseSucceeded,
			Trials: []benchv1.Trial{
				{Name: "t0", Phase: benchv1.TrialSucceeded}, {Name: "t1", Phase: benchv1.TrialFailed},
				{Name: "t2", Phase: benchv1.TrialSkipped}, {Name: "t3", Phase: benchv1.TrialPending},
			},
			Results: []benchv1.ResultRow{{
				Target: "go", Scenario: "ping", LoadPoint: 1000, Repetitions: 3,
				AchievedMilliRPS: stat(999_500), P50Micros: stat(150), P90Micros: stat(300), P95Micros: stat(500),
				P99Micros: stat(3100), P999Micros: stat(12000), MaxMicros: stat(25000),
				ErrorRatePPM: stat(250), DroppedIterations: stat(0),
				CPUMillicores: ptr.To(stat(420)), MemoryBytes: ptr.To(stat(12_582_912)),
				CostMicroUSDPerMillion: ptr.To(int64(47_222)), SLO: benchv1.VerdictMet, Valid: true,
			}, {
				Target: "node", Scenario: "ping", LoadPoint: 1000, Repetitions: 0,
				SLO: "", Valid: false, Flags: []string{"FailedRepetitions", "SomethingNew"},
				Message: "repetition 0 failed: the TestRun stopped: k6 exited 107",
			}},
		},
	}
}

// with adds a label to a rendered label list, keeping the names sorted as the text
// exposition format's parser expects to compare them.
func with(labels, extra string) string {
	all := append(strings.Split(labels, ","), extra)
	sort.Strings(all)
	return strings.Join(all, ",")
}

func TestCollectFinishedRun(t *testing.T) {
	s := NewStore()
	s.Observe(finishedRun())
	const runLabels = `namespace="bench",run="seed-001"`
	const goRow = `load_point="1000",namespace="bench",preset="go-nethttp",run="seed-001",scenario="ping",target="go"`
	const nodeRow = `load_point="1000",namespace="bench",preset="image",run="seed-001",scenario="ping",target="node"`
	want := `
# HELP gauntlet_benchmarkrun_phase 1 for the phase the BenchmarkRun is in, 0 for the others.
# TYPE gauntlet_benchmarkrun_phase gauge
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Analyzing"`) + `} 0
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Failed"`) + `} 0
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Pending"`) + `} 0
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Provisioning"`) + `} 0
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Running"`) + `} 0
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Succeeded"`) + `} 1
gauntlet_benchmarkrun_phase{` + with(runLabels, `phase="Verifying"`) + `} 0
# HELP gauntlet_benchmarkrun_trials_finished Trials that succeeded, failed or were skipped.
# TYPE gauntlet_benchmarkrun_trials_finished gauge
gauntlet_benchmarkrun_trials_finished{` + runLabels + `} 3
# HELP gauntlet_benchmarkrun_trials_planned Trials planned (targets x scenarios x load points x repetitions).
# TYPE gauntlet_benchmarkrun_trials_planned gauge
gauntlet_benchmarkrun_trials_planned{` + runLabels + `} 4
# HELP gauntlet_result_latency_seconds Median over repetitions of the request latency percentile (p50 ... p99.9, max).
# TYPE gauntlet_result_latency_seconds gauge
gauntlet_result_latency_seconds{` + with(goRow, `percentile="p50"`) + `} 0.00015
gauntlet_result_latency_seconds{` + with(goRow, `percentile="p90"`) + `} 0.0003
gauntlet_result_latency_seconds{` + with(goRow, `percentile="p95"`) + `} 0.0005
gauntlet_result_latency_seconds{` + with(goRow, `percentile="p99"`) + `} 0.0031
gauntlet_result_latency_seconds{` + with(goRow, `percentile="p99.9"`) + `} 0.012
gauntlet_result_latency_seconds{` + with(goRow, `percentile="max"`) + `} 0.025
# HELP gauntlet_result_achieved_requests_per_second Median over repetitions of requests per second in the measured window.
# TYPE gauntlet_result_achieved_requests_per_second gauge
gauntlet_result_achieved_requests_per_second{` + goRow + `} 999.5
# HELP gauntlet_result_offered_requests_per_second Arrival rate the load generator was asked for (open model).
# TYPE gauntlet_result_offered_requests_per_second gauge
gauntlet_result_offered_requests_per_second{` + goRow + `} 1000
gauntlet_result_offered_requests_per_second{` + nodeRow + `} 1000
# HELP gauntlet_result_error_ratio Median over repetitions of failed requests / requests.
# TYPE gauntlet_result_error_ratio gauge
gauntlet_result_error_ratio{` + goRow + `} 0.00025
# HELP gauntlet_result_dropped_iterations Median over repetitions of iterations k6 dropped in the measured window.
# TYPE gauntlet_result_dropped_iterations gauge
gauntlet_result_dropped_iterations{` + goRow + `} 0
# HELP gauntlet_result_cpu_cores Median over repetitions of the target's mean CPU use, in cores.
# TYPE gauntlet_result_cpu_cores gauge
gauntlet_result_cpu_cores{` + goRow + `} 0.42
# HELP gauntlet_result_memory_bytes Median over repetitions of the target's mean memory (working set in a cluster).
# TYPE gauntlet_result_memory_bytes gauge
gauntlet_result_memory_bytes{` + goRow + `} 1.2582912e+07
# HELP gauntlet_result_cost_usd_per_million_requests Node pool price per million requests at the achieved rate, in US dollars.
# TYPE gauntlet_result_cost_usd_per_million_requests gauge
gauntlet_result_cost_usd_per_million_requests{` + goRow + `} 0.047222
# HELP gauntlet_result_valid 1 when every figure of the row can be trusted, 0 when a flag says why not.
# TYPE gauntlet_result_valid gauge
gauntlet_result_valid{` + goRow + `} 1
gauntlet_result_valid{` + nodeRow + `} 0
# HELP gauntlet_result_flag 1 when the row carries the validity flag, 0 when not.
# TYPE gauntlet_result_flag gauge
gauntlet_result_flag{` + with(goRow, `flag="DroppedIterations"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="ErrorsAboveSLO"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="FailedRepetitions"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="GeneratorBound"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="GeneratorLimited"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="GeneratorNoise"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="MostlyFailed"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="Other"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="RateShortfall"`) + `} 0
gauntlet_result_flag{` + with(goRow, `flag="SharedCores"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="DroppedIterations"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="ErrorsAboveSLO"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="FailedRepetitions"`) + `} 1
gauntlet_result_flag{` + with(nodeRow, `flag="GeneratorBound"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="GeneratorLimited"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="GeneratorNoise"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="MostlyFailed"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="Other"`) + `} 1
gauntlet_result_flag{` + with(nodeRow, `flag="RateShortfall"`) + `} 0
gauntlet_result_flag{` + with(nodeRow, `flag="SharedCores"`) + `} 0
# HELP gauntlet_result_slo_verdict 1 for the row's verdict against spec.slo, 0 for the others.
# TYPE gauntlet_result_slo_verdict gauge
gauntlet_result_slo_verdict{` + with(goRow, `verdict="Met"`) + `} 1
gauntlet_result_slo_verdict{` + with(goRow, `verdict="Missed"`) + `} 0
gauntlet_result_slo_verdict{` + with(goRow, `verdict="None"`) + `} 0
gauntlet_result_slo_verdict{` + with(nodeRow, `verdict="Met"`) + `} 0
gauntlet_result_slo_verdict{` + with(nodeRow, `verdict="Missed"`) + `} 0
gauntlet_result_slo_verdict{` + with(nodeRow, `verdict="None"`) + `} 1
# HELP gauntlet_result_repetitions Repetitions that succeeded and entered the medians (n).
# TYPE gauntlet_result_repetitions gauge
gauntlet_result_repetitions{` + goRow + `} 3
gauntlet_result_repetitions{` + nodeRow + `} 0
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	// The row's message, the image reference and the headline never reach a label.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.ContainsAny(l.GetValue(), " :/") {
					t.Errorf("%s: label %s=%q is free-form", f.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// promlint (Prometheus's own naming rules: base units, no _total on gauges, help text)
// finds nothing to say about the names.
func TestMetricNamesFollowConventions(t *testing.T) {
	s := NewStore()
	s.Observe(finishedRun())
	problems, err := testutil.CollectAndLint(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// TestBaselineVerdictOnlyForComparedRows: a row compared with spec.baseline carries its
// verdict one-hot (what the chart's regression alert reads); a row never compared has none.
func TestBaselineVerdictOnlyForComparedRows(t *testing.T) {
	s := NewStore()
	run := finishedRun()
	run.Status.Results[0].Baseline = &benchv1.Comparison{Verdict: benchv1.VerdictSlower, Metric: "p99"}
	s.Observe(run)
	const goRow = `load_point="1000",namespace="bench",preset="go-nethttp",run="seed-001",scenario="ping",target="go"`
	want := `
# HELP gauntlet_result_baseline_verdict 1 for the row's verdict against the same row of spec.baseline's run, 0 for the others.
# TYPE gauntlet_result_baseline_verdict gauge
gauntlet_result_baseline_verdict{` + with(goRow, `verdict="Faster"`) + `} 0
gauntlet_result_baseline_verdict{` + with(goRow, `verdict="Inconclusive"`) + `} 0
gauntlet_result_baseline_verdict{` + with(goRow, `verdict="NoChange"`) + `} 0
gauntlet_result_baseline_verdict{` + with(goRow, `verdict="Slower"`) + `} 1
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(want), MetricBaseline); err != nil {
		t.Fatal(err)
	}
}

func TestPhaseAndProgressFollowObservations(t *testing.T) {
	s := NewStore()
	run := finishedRun()
	run.Status.Phase, run.Status.Results = benchv1.PhaseRunning, nil
	s.Observe(run)
	if got := testutil.CollectAndCount(s, MetricPhase); got != len(Phases) {
		t.Fatalf("%d phase series, want one per phase (%d)", got, len(Phases))
	}
	if got := testutil.CollectAndCount(s, MetricLatency); got != 0 {
		t.Fatalf("%d latency series before any row finished", got)
	}
	want := `
# HELP gauntlet_benchmarkrun_phase 1 for the phase the BenchmarkRun is in, 0 for the others.
# TYPE gauntlet_benchmarkrun_phase gauge
gauntlet_benchmarkrun_phase{namespace="bench",phase="Analyzing",run="seed-001"} 0
gauntlet_benchmarkrun_phase{namespace="bench",phase="Failed",run="seed-001"} 0
gauntlet_benchmarkrun_phase{namespace="bench",phase="Pending",run="seed-001"} 0
gauntlet_benchmarkrun_phase{namespace="bench",phase="Provisioning",run="seed-001"} 0
gauntlet_benchmarkrun_phase{namespace="bench",phase="Running",run="seed-001"} 1
gauntlet_benchmarkrun_phase{namespace="bench",phase="Succeeded",run="seed-001"} 0
gauntlet_benchmarkrun_phase{namespace="bench",phase="Verifying",run="seed-001"} 0
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(want), MetricPhase); err != nil {
		t.Fatal(err)
	}
	// A later pass replaces the earlier one: Failed is now the only phase set.
	run.Status.Phase = benchv1.PhaseFailed
	s.Observe(run)
	if err := testutil.CollectAndCompare(s, strings.NewReader(strings.NewReplacer(
		`phase="Running",run="seed-001"} 1`, `phase="Running",run="seed-001"} 0`,
		`phase="Failed",run="seed-001"} 0`, `phase="Failed",run="seed-001"} 1`).Replace(want)), MetricPhase); err != nil {
		t.Fatal(err)
	}
}

func TestForgetRemovesEveryRunSeries(t *testing.T) {
	s := NewStore()
	other := finishedRun()
	other.Name = "seed-002"
	s.Observe(finishedRun())
	s.Observe(other)
	both := testutil.CollectAndCount(s)
	s.Forget(types.NamespacedName{Namespace: "bench", Name: "seed-001"})
	if got := testutil.CollectAndCount(s); got != both/2 {
		t.Fatalf("%d series after forgetting one of two equal runs, want %d", got, both/2)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s)
	families, _ := reg.Gather()
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "run" && l.GetValue() != "seed-002" {
					t.Fatalf("%s still has run %q", f.GetName(), l.GetValue())
				}
			}
		}
	}
	s.Forget(types.NamespacedName{Namespace: "bench", Name: "seed-002"})
	if got := testutil.CollectAndCount(s); got != 0 {
		t.Fatalf("%d series after every run was forgotten", got)
	}
}

// The closed model has connections, not an offered rate; a nil Store ignores calls.
func TestClosedModelAndNilStore(t *testing.T) {
	s := NewStore()
	run := finishedRun()
	run.Spec.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{1000}}
	s.Observe(run)
	if n := testutil.CollectAndCount(s, MetricOfferedRate); n != 0 {
		t.Fatalf("%d offered-rate series for a closed model", n)
	}
	if n := testutil.CollectAndCount(s, MetricConnections); n != 2 {
		t.Fatalf("%d connection series, want 2", n)
	}
	var none *Store
	none.Observe(run)
	none.Forget(types.NamespacedName{Namespace: "bench", Name: "seed-001"})
}
