package main

import (
	"fmt"
	"slices"

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
// the page: a row whose requests mostly failed gives no rate, latency or resource figure;
// a flagged row gives none either, except that in a closed model a GeneratorBound row's
// rate is a lower bound on the target's (k6 was the bottleneck, not the target).
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
	for _, f := range row.Flags {
		if f == results.FlagGeneratorNoise && metric != "rps" && row.LatencySource == benchv1.LatencyWire {
			continue // only k6's own timings are noise; the wire's are the record
		}
		if f == results.FlagGeneratorNoise && (metric == "rps" || metric == "cpu" || metric == "memory") {
			continue
		}
		if f == results.FlagGeneratorBound && closed && metric == "rps" {
			v.atLeast = true
			continue
		}
		return v, fmt.Sprintf("%s's row is flagged %s", row.Target, f)
	}
	switch metric {
	case "rps":
		v.stat = row.AchievedMilliRPS
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
