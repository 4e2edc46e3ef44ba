package main

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// value is one figure of one row: its spread over the repetitions, and whether it is only a
// lower bound on the target's (a closed-model rate that k6 could not push higher).
type value struct {
	who     string
	stat    benchv1.Stat
	n       int32
	atLeast bool
	// requests per window over the repetitions, stated beside a percentile ("601").
	requests string
}

// side names a row: a target in a document's scenario at a load point.
type side struct {
	doc, target string
	point       int
}

// pick finds the row a side names, or says why there is none.
func pick(runs map[string]*run, scenario string, s side) (*run, benchv1.ResultRow, string, string) {
	r, ok := runs[s.doc]
	if !ok {
		return nil, benchv1.ResultRow{}, NotRun, s.doc + " has no results"
	}
	var points []int32
	for _, row := range r.BR.Status.Results {
		if row.Scenario == scenario && !slices.Contains(points, row.LoadPoint) {
			points = append(points, row.LoadPoint)
		}
	}
	slices.Sort(points)
	i := s.point
	if i < 0 {
		i += len(points)
	}
	if i < 0 || i >= len(points) {
		return r, benchv1.ResultRow{}, NotComparable, fmt.Sprintf("%s has no load point %d of %s", s.doc, s.point, scenario)
	}
	for _, row := range r.BR.Status.Results {
		if row.Scenario == scenario && row.LoadPoint == points[i] && row.Target == s.target {
			return r, row, "", ""
		}
	}
	return r, benchv1.ResultRow{}, NotComparable, fmt.Sprintf("%s has no row at %s", s.target, report.LoadLabel(r.BR.Spec.Load, points[i]))
}

// mostlyFailed reads the product's flag, or the error rate for runs recorded before it.
func mostlyFailed(row benchv1.ResultRow) bool {
	return slices.Contains(row.Flags, results.FlagMostlyFailed) || row.ErrorRatePPM.Median > results.MostlyFailedPPM
}

// valueOf reads a row's figure, or says why the row cannot give it. The rules, stated on
// the page: a row whose requests mostly failed gives no rate, latency or resource figure; a
// flagged row gives none either, except what its flag leaves alone: GeneratorBound (k6's
// timings inflated) leaves the rate and resources; in a closed model GeneratorLimited (k6
// set the rate) makes the rate a lower bound on the target's, and the wire's latency the
// target's at one connection (one request at a time: k6 cannot change the server's time
// for it) and a lower bound beyond (k6 kept fewer requests in flight than the connections).
func valueOf(r *run, row benchv1.ResultRow, metric string) (value, string) {
	v := value{who: row.Target, n: row.Repetitions}
	if row.Repetitions == 0 {
		return v, row.Target + " was not measured"
	}
	if metric == "errors" {
		v.stat = row.ErrorRatePPM
		return v, ""
	}
	if mostlyFailed(row) {
		// The flag marks a row where any repetition mostly failed: name the worst, since the
		// median of the others can be 0%.
		return v, fmt.Sprintf("%s's requests mostly failed (%s errors in its worst repetition, %s the median): its figures are of failures",
			row.Target, units.FormatPPM(row.ErrorRatePPM.Max), units.FormatPPM(row.ErrorRatePPM.Median))
	}
	closed := r.BR.Spec.Load.Model == benchv1.LoadModelClosed
	latencyMetric := metric != "rps" && metric != "cpu" && metric != "memory" && metric != "memoryPeak"
	wire := row.LatencySource == benchv1.LatencyWire
	for _, f := range row.Flags {
		switch {
		case f == results.FlagGeneratorNoise && (!latencyMetric || wire):
			continue // only k6's own timings are noise; the wire's are the record
		case f == results.FlagGeneratorBound && !latencyMetric:
			continue // k6's timings are inflated, not the rate or the target's resources
		case f == results.FlagGeneratorLimited && closed && metric == "rps":
			v.atLeast = true
			continue
		case f == results.FlagGeneratorLimited && closed && latencyMetric && wire:
			v.atLeast = row.LoadPoint > 1
			continue
		}
		return v, fmt.Sprintf("%s's row is flagged %s", row.Target, f)
	}
	if rates, ok := warming(r, row); ok && (metric == "rps" || latencyMetric) {
		return v, fmt.Sprintf("%s's rate rose from each repetition to the next (%s req/s): it had not settled, so no window is its steady state", row.Target, rates)
	}
	if latencyMetric {
		v.requests = requestSpread(r, row)
		if q, ok := quantiles[metric]; ok {
			for _, m := range measurements(r, row) {
				if float64(m.Requests) < 1/(1-q) {
					return v, fmt.Sprintf("%s's windows held %s requests: their %s is their slowest request, not a percentile", row.Target, requestSpread(r, row), metric)
				}
			}
		}
	}
	switch metric {
	case "rps":
		v.stat = row.AchievedMilliRPS
	case "memoryPeak":
		s, ok := peakMemory(r, row)
		if !ok {
			return v, row.Target + " has no peak memory figure"
		}
		v.stat = s
	case "cpu", "memory":
		s := row.CPUMillicores
		if metric == "memory" {
			s = row.MemoryBytes
		}
		if s == nil {
			return v, row.Target + " has no " + metric + " figure"
		}
		v.stat = *s
	default:
		s, ok := latency(row, metric)
		if !ok {
			return v, row.Target + "'s run did not record " + metric
		}
		v.stat = s
	}
	return v, ""
}

// latency is a percentile of the latency of record: the wire's when captured, k6's otherwise.
func latency(row benchv1.ResultRow, metric string) (benchv1.Stat, bool) {
	k6 := map[string]benchv1.Stat{"p50": row.P50Micros, "p90": row.P90Micros, "p95": row.P95Micros,
		"p99": row.P99Micros, "p99.9": row.P999Micros, "max": row.MaxMicros}
	if w := row.Wire; row.LatencySource == benchv1.LatencyWire && w != nil {
		k6 = map[string]benchv1.Stat{"p50": w.P50Micros, "p90": w.P90Micros, "p95": w.P95Micros,
			"p99": w.P99Micros, "p99.9": w.P999Micros, "max": w.MaxMicros}
	}
	s, ok := k6[metric]
	if !ok {
		panic("unknown metric " + metric)
	}
	return s, s.Median > 0 // a latency of 0 is a figure the run did not record
}

// peakMemory is the row's peak memory over each repetition's window (memoryPeakBytes of its
// trials; the row keeps only the mean), as a spread over the repetitions.
func peakMemory(r *run, row benchv1.ResultRow) (benchv1.Stat, bool) {
	var peaks []int64
	for _, m := range measurements(r, row) {
		if m.MemoryPeakBytes > 0 {
			peaks = append(peaks, m.MemoryPeakBytes)
		}
	}
	if len(peaks) == 0 {
		return benchv1.Stat{}, false
	}
	return results.Summarize(peaks), true
}

// measurements are the row's succeeded repetitions' figures, in repetition order.
func measurements(r *run, row benchv1.ResultRow) []benchv1.Measurement {
	var ms []benchv1.Measurement
	for _, t := range r.BR.Status.Trials {
		if results.MakesRow(t) && t.Target == row.Target && t.Scenario == row.Scenario && t.LoadPoint == row.LoadPoint &&
			t.Phase == benchv1.TrialSucceeded && t.Result != nil {
			ms = append(ms, *t.Result)
		}
	}
	return ms
}

// quantiles are the percentiles a claim can read: one of n requests is at or beyond q only
// when n >= 1/(1-q), below that the percentile is the window's maximum.
var quantiles = map[string]float64{"p90": 0.9, "p95": 0.95, "p99": 0.99, "p99.9": 0.999}

// WarmingFactor: a row whose rate rose from each repetition to the next, and by this factor
// from the first to the last, had not settled: a JIT still warming up (PyPy given a 1 s
// warm-up: pypy-tornado at 5 connections ran 324, 503 and 961 req/s), or a database or
// machine still warming under it. Its figures are refused, as a rate still rising has no
// steady state to compare.
const WarmingFactor = 1.5

// warming says whether a row's rate rose through its repetitions, with the rates in order.
func warming(r *run, row benchv1.ResultRow) (string, bool) {
	ms := measurements(r, row)
	if len(ms) < 2 {
		return "", false
	}
	var rates []string
	for i, m := range ms {
		if i > 0 && m.AchievedMilliRPS <= ms[i-1].AchievedMilliRPS {
			return "", false
		}
		rates = append(rates, fmt.Sprintf("%.1f", float64(m.AchievedMilliRPS)/1000))
	}
	first, last := ms[0].AchievedMilliRPS, ms[len(ms)-1].AchievedMilliRPS
	return strings.Join(rates, ", "), float64(last) >= WarmingFactor*float64(first)
}
