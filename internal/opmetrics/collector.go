package opmetrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// Metric names, in base units (seconds, bytes, cores, ratios); dashboards/ reads them.
const (
	MetricPhase          = "gauntlet_benchmarkrun_phase"
	MetricTrialsFinished = "gauntlet_benchmarkrun_trials_finished"
	MetricTrialsPlanned  = "gauntlet_benchmarkrun_trials_planned"
	MetricLatency        = "gauntlet_result_latency_seconds"
	MetricAchievedRate   = "gauntlet_result_achieved_requests_per_second"
	MetricOfferedRate    = "gauntlet_result_offered_requests_per_second"
	MetricConnections    = "gauntlet_result_connections"
	MetricErrorRatio     = "gauntlet_result_error_ratio"
	MetricDropped        = "gauntlet_result_dropped_iterations"
	MetricCPU            = "gauntlet_result_cpu_cores"
	MetricMemory         = "gauntlet_result_memory_bytes"
	MetricCost           = "gauntlet_result_cost_usd_per_million_requests"
	MetricValid          = "gauntlet_result_valid"
	MetricFlag           = "gauntlet_result_flag"
	MetricSLO            = "gauntlet_result_slo_verdict"
	MetricRepetitions    = "gauntlet_result_repetitions"
	MetricBaseline       = "gauntlet_result_baseline_verdict"
)

// Phases is the fixed set the phase gauge is one-hot over, in the order a run goes.
var Phases = []benchv1.Phase{benchv1.PhasePending, benchv1.PhaseProvisioning, benchv1.PhaseVerifying,
	benchv1.PhaseRunning, benchv1.PhaseAnalyzing, benchv1.PhaseSucceeded, benchv1.PhaseFailed}

// Verdicts is the fixed set the SLO gauge is one-hot over.
var Verdicts = []benchv1.Verdict{benchv1.VerdictMet, benchv1.VerdictMissed, benchv1.VerdictNone}

// BaselineVerdicts is the fixed set the baseline gauge is one-hot over (rows compared with
// spec.baseline only): alerting on regressions reads verdict="Slower".
var BaselineVerdicts = []benchv1.RegressionVerdict{benchv1.VerdictFaster, benchv1.VerdictSlower,
	benchv1.VerdictNoChange, benchv1.VerdictInconclusive}

// FlagOther stands for a flag outside results.ValidityFlags (written by another version),
// so the flag label stays bounded and the row still shows as flagged.
const FlagOther = "Other"

// quantiles label the latency figures (a percentile label, not "quantile": that one is
// reserved for summaries).
var quantiles = []struct {
	label string
	stat  func(*benchv1.ResultRow) benchv1.Stat
}{
	{"p50", func(r *benchv1.ResultRow) benchv1.Stat { return r.P50Micros }},
	{"p90", func(r *benchv1.ResultRow) benchv1.Stat { return r.P90Micros }},
	{"p95", func(r *benchv1.ResultRow) benchv1.Stat { return r.P95Micros }},
	{"p99", func(r *benchv1.ResultRow) benchv1.Stat { return r.P99Micros }},
	{"p99.9", func(r *benchv1.ResultRow) benchv1.Stat { return r.P999Micros }},
	{"max", func(r *benchv1.ResultRow) benchv1.Stat { return r.MaxMicros }},
}

var (
	runLabels = []string{"namespace", "run"}
	rowLabels = []string{"namespace", "run", "target", "preset", "scenario", "load_point"}

	descPhase = prometheus.NewDesc(MetricPhase,
		"1 for the phase the BenchmarkRun is in, 0 for the others.", append(runLabels, "phase"), nil)
	descFinished = prometheus.NewDesc(MetricTrialsFinished,
		"Trials that succeeded, failed or were skipped.", runLabels, nil)
	descPlanned = prometheus.NewDesc(MetricTrialsPlanned,
		"Trials planned (targets x scenarios x load points x repetitions).", runLabels, nil)
	descLatency = prometheus.NewDesc(MetricLatency,
		"Median over repetitions of the request latency percentile (p50 ... p99.9, max).", append(rowLabels, "percentile"), nil)
	descAchieved = prometheus.NewDesc(MetricAchievedRate,
		"Median over repetitions of requests per second in the measured window.", rowLabels, nil)
	descOffered = prometheus.NewDesc(MetricOfferedRate,
		"Arrival rate the load generator was asked for (open model).", rowLabels, nil)
	descConnections = prometheus.NewDesc(MetricConnections,
		"Concurrent connections of the load point (closed model).", rowLabels, nil)
	descErrors = prometheus.NewDesc(MetricErrorRatio,
		"Median over repetitions of failed requests / requests.", rowLabels, nil)
	descDropped = prometheus.NewDesc(MetricDropped,
		"Median over repetitions of iterations k6 dropped in the measured window.", rowLabels, nil)
	descCPU = prometheus.NewDesc(MetricCPU,
		"Median over repetitions of the target's mean CPU use, in cores.", rowLabels, nil)
	descMemory = prometheus.NewDesc(MetricMemory,
		"Median over repetitions of the target's mean memory (working set in a cluster).", rowLabels, nil)
	descCost = prometheus.NewDesc(MetricCost,
		"Node pool price per million requests at the achieved rate, in US dollars.", rowLabels, nil)
	descValid = prometheus.NewDesc(MetricValid,
		"1 when every figure of the row can be trusted, 0 when a flag says why not.", rowLabels, nil)
	descFlag = prometheus.NewDesc(MetricFlag,
		"1 when the row carries the validity flag, 0 when not.", append(rowLabels, "flag"), nil)
	descSLO = prometheus.NewDesc(MetricSLO,
		"1 for the row's verdict against spec.slo, 0 for the others.", append(rowLabels, "verdict"), nil)
	descRepetitions = prometheus.NewDesc(MetricRepetitions,
		"Repetitions that succeeded and entered the medians (n).", rowLabels, nil)
	descBaseline = prometheus.NewDesc(MetricBaseline,
		"1 for the row's verdict against the same row of spec.baseline's run, 0 for the others.", append(rowLabels, "verdict"), nil)
)

// Describe sends every metric's description.
func (s *Store) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPhase, descFinished, descPlanned, descLatency, descAchieved,
		descOffered, descConnections, descErrors, descDropped, descCPU, descMemory, descCost, descValid,
		descFlag, descSLO, descRepetitions, descBaseline} {
		ch <- d
	}
}

// Collect renders the runs held now.
func (s *Store) Collect(ch chan<- prometheus.Metric) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for key, run := range s.runs {
		for _, p := range Phases {
			ch <- gauge(descPhase, oneIf(run.phase == p), key.Namespace, key.Name, string(p))
		}
		ch <- gauge(descFinished, float64(run.done), key.Namespace, key.Name)
		ch <- gauge(descPlanned, float64(run.total), key.Namespace, key.Name)
		for i := range run.rows {
			collectRow(ch, &run.rows[i], run, key.Namespace, key.Name)
		}
	}
}

func collectRow(ch chan<- prometheus.Metric, r *benchv1.ResultRow, run runSnapshot, namespace, name string) {
	preset, ok := run.presets[r.Target]
	if !ok {
		preset = "unknown"
	}
	lv := []string{namespace, name, r.Target, preset, r.Scenario, strconv.Itoa(int(r.LoadPoint))}
	with := func(extra string) []string { return append(append([]string{}, lv...), extra) }

	ch <- gauge(descValid, oneIf(r.Valid), lv...)
	ch <- gauge(descRepetitions, float64(r.Repetitions), lv...)
	known := map[string]bool{}
	for _, f := range results.ValidityFlags {
		known[f] = true
		ch <- gauge(descFlag, oneIf(hasFlag(r.Flags, f)), with(f)...)
	}
	other := false
	for _, f := range r.Flags {
		other = other || !known[f]
	}
	ch <- gauge(descFlag, oneIf(other), with(FlagOther)...)
	verdict := r.SLO
	if verdict == "" {
		verdict = benchv1.VerdictNone
	}
	for _, v := range Verdicts {
		ch <- gauge(descSLO, oneIf(verdict == v), with(string(v))...)
	}
	if r.Baseline != nil {
		for _, v := range BaselineVerdicts {
			ch <- gauge(descBaseline, oneIf(r.Baseline.Verdict == v), with(string(v))...)
		}
	}
	if run.openModel {
		ch <- gauge(descOffered, float64(r.LoadPoint), lv...)
	} else {
		ch <- gauge(descConnections, float64(r.LoadPoint), lv...)
	}
	// A row whose repetitions all failed has no figures: zeros would read as measurements.
	if r.Repetitions == 0 {
		return
	}
	for _, q := range quantiles {
		ch <- gauge(descLatency, float64(q.stat(r).Median)/1e6, with(q.label)...)
	}
	ch <- gauge(descAchieved, float64(r.AchievedMilliRPS.Median)/1e3, lv...)
	ch <- gauge(descErrors, float64(r.ErrorRatePPM.Median)/1e6, lv...)
	ch <- gauge(descDropped, float64(r.DroppedIterations.Median), lv...)
	if r.CPUMillicores != nil {
		ch <- gauge(descCPU, float64(r.CPUMillicores.Median)/1e3, lv...)
	}
	if r.MemoryBytes != nil {
		ch <- gauge(descMemory, float64(r.MemoryBytes.Median), lv...)
	}
	if r.CostMicroUSDPerMillion != nil {
		ch <- gauge(descCost, float64(*r.CostMicroUSDPerMillion)/1e6, lv...)
	}
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}
