package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// recordStats are a row's latency of record with their spread: p50, p90, p95, p99, p99.9, max.
func recordStats(r benchv1.ResultRow) [6]benchv1.Stat {
	if r.LatencySource == benchv1.LatencyWire && r.Wire != nil {
		w := r.Wire
		return [6]benchv1.Stat{w.P50Micros, w.P90Micros, w.P95Micros, w.P99Micros, w.P999Micros, w.MaxMicros}
	}
	return [6]benchv1.Stat{r.P50Micros, r.P90Micros, r.P95Micros, r.P99Micros, r.P999Micros, r.MaxMicros}
}

// spectrumCharts are a scenario's percentile spectra, one chart per load point with every
// target overlaid; a search's answers, at rates of their own, share one chart.
func spectrumCharts(run *benchv1.BenchmarkRun, scenario string, rows []benchv1.ResultRow, format func(float64) string) []template.HTML {
	groups := map[string][]series{}
	var order []string
	for _, r := range rows {
		group := LoadLabel(run.Spec.Load, r.LoadPoint)
		if isSearch, answer := fromSearch(run, r); isSearch && !answer {
			continue // a search's full-length trials at a rate it then gave up
		} else if isSearch {
			group = "capacity"
		}
		s := series{Name: r.Target + " @ " + LoadLabel(run.Spec.Load, r.LoadPoint)}
		for _, st := range recordStats(r) {
			s.Values, s.Lo, s.Hi = append(s.Values, float64(st.Median)), append(s.Lo, float64(st.Min)), append(s.Hi, float64(st.Max))
		}
		if _, ok := groups[group]; !ok {
			order = append(order, group)
		}
		groups[group] = append(groups[group], s)
	}
	var out []template.HTML
	for _, g := range order {
		title := fmt.Sprintf("%s @ %s: latency by percentile (log–log; dots: median, bars: min–max over repetitions)", scenario, g)
		if g == "capacity" {
			title = scenario + " at each target's capacity: latency by percentile (log–log; dots: median, bars: min–max)"
		}
		out = append(out, spectrumChart(title, groups[g], format))
	}
	return out
}

// fromSearch says whether a row comes from a capacity search (its rate is no fixed load
// point) and whether it is the search's answer.
func fromSearch(run *benchv1.BenchmarkRun, r benchv1.ResultRow) (fromSearch, answer bool) {
	if slices.Contains(run.Spec.Load.Rates, r.LoadPoint) {
		return false, false
	}
	for _, s := range run.Status.Search {
		if s.Target == r.Target && s.Scenario == r.Scenario {
			return true, s.Phase == benchv1.SearchDone && s.CapacityRPS == r.LoadPoint
		}
	}
	return false, false
}

// rateChartFor is a scenario's latency (p99 of record) against offered rate, when there is
// more than one rate to show: several load points, or a search's steps.
func rateChartFor(run *benchv1.BenchmarkRun, scenario string, rows []benchv1.ResultRow, format func(float64) string) template.HTML {
	if run.Spec.Load.Model == benchv1.LoadModelClosed {
		return ""
	}
	byTarget := map[string]*rateSeries{}
	var order []string
	get := func(t string) *rateSeries {
		if byTarget[t] == nil {
			byTarget[t] = &rateSeries{Name: t}
			order = append(order, t)
		}
		return byTarget[t]
	}
	rates := map[int32]bool{} // a chart needs more than one rate
	for _, r := range rows {
		p99 := recordStats(r)[3]
		get(r.Target).Points = append(get(r.Target).Points, ratePoint{Rate: float64(r.LoadPoint), Latency: float64(p99.Median),
			Lo: float64(p99.Min), Hi: float64(p99.Max), Full: true, Note: fmt.Sprintf("p99, n=%d", r.Repetitions)})
		rates[r.LoadPoint] = true
	}
	for _, s := range run.Status.Search {
		if s.Scenario != scenario {
			continue
		}
		rs := get(s.Target)
		for _, st := range s.Steps {
			if st.Kind == benchv1.StepConfirm || st.Outcome == benchv1.StepPending || st.P99Micros <= 0 {
				continue // full-length repetitions are the rows above
			}
			rs.Points = append(rs.Points, ratePoint{Rate: float64(st.RPS), Latency: float64(st.P99Micros), Lo: math.NaN(), Hi: math.NaN(),
				Failed: st.Outcome != benchv1.StepPass, Note: fmt.Sprintf("p99, %s step: %s %s", strings.ToLower(string(st.Kind)), st.Outcome, st.Reason)})
			rates[st.RPS] = true
		}
		if s.Phase == benchv1.SearchDone {
			rs.Capacity, rs.AtLeast = float64(s.CapacityRPS), s.Bound == benchv1.BoundLower
		}
	}
	if len(rates) < 2 {
		return ""
	}
	var ss []rateSeries
	for _, t := range order {
		s := *byTarget[t]
		slices.SortStableFunc(s.Points, func(a, b ratePoint) int { return int(a.Rate - b.Rate) })
		ss = append(ss, s)
	}
	slo := 0.0
	if run.Spec.SLO != nil && run.Spec.SLO.P99 != "" {
		slo = float64(run.Spec.SLO.P99.Std().Microseconds())
	}
	rate := func(v float64) string { return fmt.Sprintf("%g/s", v) }
	return rateChart(scenario+": p99 against offered rate (dots: rows, min–max; rings: search steps, red: failed)", ss, slo, format, rate)
}

// searchRow is one capacity search as the table and the report print it.
type searchRow struct {
	benchv1.CapacitySearch
	Answer, Upper, Cost, Reps string
}

func searchRows(run *benchv1.BenchmarkRun) []searchRow {
	var out []searchRow
	for _, s := range run.Status.Search {
		r := searchRow{CapacitySearch: s, Answer: NoFigure, Upper: NoFigure, Cost: NoFigure, Reps: NoFigure}
		if s.Phase == benchv1.SearchDone {
			r.Answer = fmt.Sprintf("%d/s", s.CapacityRPS)
			if s.Bound == benchv1.BoundLower {
				r.Answer = "≥ " + r.Answer
			}
			r.Reps = fmt.Sprintf("%d/%d", s.PassedRepetitions, s.Repetitions)
		}
		if s.UpperRPS > 0 {
			r.Upper = fmt.Sprintf("%d/s", s.UpperRPS)
		}
		if s.CostMicroUSDPerMillion != nil {
			r.Cost = units.FormatMicroUSD(*s.CostMicroUSDPerMillion)
		}
		out = append(out, r)
	}
	return out
}

// WriteSearch prints the capacity searches (nothing without spec.load.search): answer,
// bound, confidence, the repetitions that confirmed it, the lowest failing rate, the cost
// per million requests at capacity, the steps taken, and why.
func WriteSearch(w io.Writer, run *benchv1.BenchmarkRun) error {
	w = textsafe.NewWriter(w) // names and messages are the tenant's and the target's text
	rows := searchRows(run)
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "capacity under the SLO (spec.load.search):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tSCENARIO\tCAPACITY\tBOUND\tCONFIDENCE\tCONFIRMED\tFAILED AT\tCOST/1M REQ\tSTEPS")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.Target, r.Scenario, r.Answer, orNone(string(r.Bound)),
			orNone(string(r.Confidence)), r.Reps, r.Upper, r.Cost, len(r.Steps))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s/%s: %s\n", r.Target, r.Scenario, r.Message)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return NoFigure
	}
	return s
}
