// Package report renders a finished BenchmarkRun: report.html (tables and inline SVG
// charts, readable offline), the terminal's tables, and the results folder written beside
// them. It reads only the run's spec and status, so a cluster run (gauntlet report) and a
// local one render alike, and the renderer is kept apart from the local runner that
// produces the status.
package report

import (
	"bytes"
	"html/template"
	"math"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

// reportData is what report.html shows: the run, its rows and one set of charts per scenario.
type reportData struct {
	Run         *benchv1.BenchmarkRun
	Scale       string
	NoiseFactor int
	Rows        []reportRow
	Scenarios   []scenarioCharts
	Searches    []searchRow
	// Compared: the rows have verdicts against a baseline.
	Compared bool
	// Limits: each target's CPU and memory limits, or why none.
	Limits []string
}

type reportRow struct {
	benchv1.ResultRow
	cells
	Verdict comparisonCell
}

type scenarioCharts struct {
	Name                             string
	Spectrum                         []template.HTML
	Rate                             template.HTML
	Latency, Throughput, CPU, Memory template.HTML
}

// Report renders report.html: a self-contained page with inline SVG charts.
func Report(run *benchv1.BenchmarkRun) ([]byte, error) {
	d := reportData{Run: run, Scale: run.Annotations[transform.ScaleAnnotation], NoiseFactor: results.NoiseFactor, Searches: searchRows(run), Limits: limitsLines(run)}
	for _, r := range run.Status.Results {
		row := reportRow{ResultRow: r, cells: cellsOf(run.Spec.Load, r, true)}
		if r.Baseline != nil {
			d.Compared, row.Verdict = true, comparisonCells(*r.Baseline)
		}
		d.Rows = append(d.Rows, row)
	}
	for _, s := range run.Spec.Scenarios {
		if c, ok := chartsFor(run, s.Name); ok {
			d.Scenarios = append(d.Scenarios, c)
		}
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// spread is a median latency with its min-max over the repetitions.
func spread(s benchv1.Stat) string {
	if s.Min == s.Max {
		return results.FormatMicros(s.Median)
	}
	return results.FormatMicros(s.Median) + " (" + results.FormatMicros(s.Min) + "–" + results.FormatMicros(s.Max) + ")"
}

// chartsFor draws one scenario's charts from its rows (medians over repetitions).
func chartsFor(run *benchv1.BenchmarkRun, scenario string) (scenarioCharts, bool) {
	var rows []benchv1.ResultRow
	var targets []string
	var points []int32
	for _, r := range run.Status.Results {
		if r.Scenario != scenario || r.Repetitions == 0 {
			continue
		}
		rows = append(rows, r)
		if !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
		if !slices.Contains(points, r.LoadPoint) {
			points = append(points, r.LoadPoint)
		}
	}
	if len(rows) == 0 {
		return scenarioCharts{}, false
	}
	slices.Sort(points)
	ms := func(us float64) string { return results.FormatMicros(int64(us)) }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	c := scenarioCharts{Name: scenario}

	// Latency: a group per row, a bar per percentile, on a log scale (p50 and max differ by orders).
	var cats []string
	lat := []series{{Name: "p50"}, {Name: "p90"}, {Name: "p99"}, {Name: "p99.9"}, {Name: "max"}, {Name: "k6 p99"}}
	var bands []band
	cpu, mem := []series{{Name: "CPU (cores)"}}, []series{{Name: "memory (MiB, PSS)"}}
	spreadOf := func(s *benchv1.Stat, unit float64) (float64, float64) {
		if s == nil {
			return math.NaN(), math.NaN()
		}
		return float64(s.Min) / unit, float64(s.Max) / unit
	}
	for _, r := range rows {
		label := r.Target
		if len(points) > 1 {
			label += " @ " + LoadLabel(run.Spec.Load, r.LoadPoint)
		}
		if !r.Valid {
			label += " (invalid)"
		}
		cats = append(cats, label)
		rec := recordStats(r)
		for i, st := range []benchv1.Stat{rec[0], rec[1], rec[3], rec[4], rec[5], r.P99Micros} {
			lat[i].Values = append(lat[i].Values, float64(st.Median))
			lat[i].Lo, lat[i].Hi = append(lat[i].Lo, float64(st.Min)), append(lat[i].Hi, float64(st.Max))
		}
		bd := band{Lo: math.NaN(), Hi: math.NaN()}
		if f := r.GeneratorFloor; f != nil {
			bd = band{Lo: float64(f.P50Micros), Hi: float64(f.P99Micros)}
		}
		bands = append(bands, bd)
		cpu[0].Values = append(cpu[0].Values, statValue(r.CPUMillicores, 1000))
		mem[0].Values = append(mem[0].Values, statValue(r.MemoryBytes, 1<<20))
		lo, hi := spreadOf(r.CPUMillicores, 1000)
		cpu[0].Lo, cpu[0].Hi = append(cpu[0].Lo, lo), append(cpu[0].Hi, hi)
		lo, hi = spreadOf(r.MemoryBytes, 1<<20)
		mem[0].Lo, mem[0].Hi = append(mem[0].Lo, lo), append(mem[0].Hi, hi)
	}
	c.Latency = bandedBarChart(scenario+": latency of record and k6's p99, median with min–max bars; grey: generator floor p50–p99 (log)", cats, lat, bands, true, ms)
	c.Spectrum = spectrumCharts(run, scenario, rows, ms)
	c.Rate = rateChartFor(run, scenario, rows, ms)
	c.CPU = barChart(scenario+": target CPU during the measured window (cores, mean; bars: min–max)", cats, cpu, false, num)
	c.Memory = barChart(scenario+": target memory (PSS of the process tree, MiB, mean; bars: min–max)", cats, mem, false, num)

	// Throughput: achieved against offered, one line per target.
	xs := make([]float64, len(points))
	for i, p := range points {
		xs[i] = float64(p)
	}
	var tput []series
	for _, t := range targets {
		s := series{Name: t, Values: make([]float64, len(points))}
		for i, p := range points {
			s.Values[i] = math.NaN()
			for _, r := range rows {
				if r.Target == t && r.LoadPoint == p {
					s.Values[i] = float64(r.AchievedMilliRPS.Median) / 1000
				}
			}
		}
		tput = append(tput, s)
	}
	if run.Spec.Load.Model == benchv1.LoadModelClosed {
		c.Throughput = lineChart(scenario+": throughput (req/s) against connections", "connections", xs, tput, false, num)
	} else {
		c.Throughput = lineChart(scenario+": achieved against offered rate (req/s; dashed: achieved = offered)", "offered req/s", xs, tput, true, num)
	}
	return c, true
}

func statValue(s *benchv1.Stat, unit float64) float64 {
	if s == nil {
		return math.NaN()
	}
	return float64(s.Median) / unit
}

// utc prints a time as a plain UTC timestamp: a metav1.Time's own String() carries Go's
// monotonic clock reading ("m=+0.058") when the time was taken with time.Now.
func utc(t *metav1.Time) string {
	if t == nil {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"utc": utc}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Gauntlet: {{.Run.Name}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}
td[style],span.muted{white-space:normal}
td:first-child,td:nth-child(2),th{text-align:left}.bad{background:#fde2e2}.muted{color:#777}
.Slower{background:#fde2e2;font-weight:bold}.Faster{background:#e2f5e2;font-weight:bold}.Inconclusive{color:#777}
svg{display:block;margin:1em 0}
</style></head><body>
<h1>{{.Run.Name}}: {{.Run.Status.Phase}}</h1>
<p>{{.Run.Status.Headline}}. Trials {{.Run.Status.Progress}}; targets {{.Run.Status.TargetNames}};
{{.Run.Spec.Load.Model}} model, warmup {{.Run.Spec.Load.Warmup}}, window {{.Run.Spec.Load.Duration}},
{{.Run.Spec.Load.Repetitions}} repetition(s). Started {{utc .Run.Status.StartedAt}}, finished {{utc .Run.Status.FinishedAt}}.
{{if .Scale}}<br><b>Load points scaled by {{.Scale}}</b> (--scale) to fit this machine.{{end}}</p>
{{if .Searches}}<h2>Capacity under the SLO</h2>
<p class="muted">The highest offered rate at which the SLO held and the row was valid (no dropped iterations, at least 99% of the offered rate, the load generator under its CPU bound): bracketed and bisected with short trials, then confirmed with full-length repetitions. ≥ marks a lower bound: the load generator saturated first, or maxRate was reached. Cost is the node pool's hourly price per million requests at that rate.</p>
<table><tr><th>target</th><th>scenario</th><th>capacity</th><th>bound</th><th>confidence</th><th>confirmed</th><th>failed at</th><th>cost / 1M req</th><th>steps</th><th>why</th></tr>
{{range .Searches}}<tr><td>{{.Target}}</td><td>{{.Scenario}}</td><td><b>{{.Answer}}</b></td><td>{{.Bound}}</td><td>{{.Confidence}}</td><td>{{.Reps}}</td><td>{{.Upper}}</td><td>{{.Cost}}</td><td>{{len .Steps}}</td><td style="text-align:left">{{.Message}}</td></tr>
{{end}}</table>
{{end}}{{with .Run.Status.Baseline}}<h2>Against the baseline</h2>
<p>{{if .Pairs}}Compared within the run: <b>{{.Pairs}}</b>, measured in the same rounds in a random order (seed {{$.Run.Status.OrderSeed}}){{if .Run}}; other rows {{end}}{{end}}{{if .Run}}{{if not .Pairs}}Compared {{end}}with <b>{{.Run}}</b> ({{.Source}}){{end}} on {{.Metric}}, minimum effect {{.MinEffect}}: against a run, Mann-Whitney U at alpha 0.05 (at least 4 valid repetitions a side) and the Hodges-Lehmann shift with its 95% interval; within a pair, Student's t on each round's log ratio (at least 4 rounds) and the shift with its t interval. Slower/Faster: significant and at least the minimum effect; NoChange: the shift shown within ± the minimum effect (its 90% interval inside it), or significant but smaller; Inconclusive otherwise. Detects: the smallest shift these repetitions would call a change four times in five, from their spread.</p>
<table><tr><th>target</th><th>scenario</th><th>load</th><th>against</th><th>source</th><th>baseline</th><th>this row</th><th>shift [95% CI]</th><th>p</th><th>detects</th><th>verdict</th><th>why</th></tr>
{{range $.Rows}}{{if .Baseline}}<tr><td>{{.Target}}</td><td>{{.Scenario}}</td><td>{{.Load}}</td><td>{{or .Baseline.BaselineTarget $.Run.Status.Baseline.Run}}</td><td>{{.Verdict.Source}}</td><td>{{.Verdict.Baseline}}</td><td>{{.Verdict.This}}</td><td>{{.Verdict.Shift}}</td><td>{{.Verdict.P}}</td><td>{{.Verdict.Detects}}</td><td class="{{.Verdict.Verdict}}">{{.Verdict.Verdict}}</td><td style="text-align:left" class="muted">{{.Baseline.Message}}</td></tr>
{{end}}{{end}}</table>
{{range $.Run.Status.Conditions}}{{if eq .Type "Regressed"}}<p><b>Regressed: {{.Status}}</b> — {{.Message}}</p>{{end}}{{end}}
{{end}}<h2>Results</h2>
<p class="muted">Medians over the repetitions (min–max in brackets). A row marked invalid is not the target's figure: the load generator or the offered rate could not be trusted.
p50…max are the latency of record: <b>wire</b> (the time from a request's first packet to its response's first packet on the target's port, no load generator in it) when every repetition was captured, else <b>k6</b> (the generator's timings). k6's own p50/p99 stand beside them; floor is k6's p50–p99 against the null responder at the same rate; * marks a k6 p99 under {{.NoiseFactor}}x the floor: the generator's, not the target's.
{{with .Run.Status.Placement}}<br>CPUs: {{.Message}}{{end}}{{range .Limits}}<br>limits: {{.}}{{end}}</p>
<table><tr><th>target</th><th>scenario</th><th>load</th><th>n</th><th>req/s</th><th>source</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>k6 p50</th><th>k6 p99</th><th>floor</th><th>errors</th><th>CPU</th><th>memory</th><th>valid</th>{{if .Compared}}<th>vs baseline</th>{{end}}</tr>
{{range .Rows}}<tr{{if not .Valid}} class="bad"{{end}}><td>{{.Target}}</td><td>{{.Scenario}}</td><td>{{.Load}}</td><td>{{.Repetitions}}</td><td>{{.RPS}}</td><td>{{.Source}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td><td>{{.K6P50}}</td><td>{{.K6P99}}</td><td>{{.Floor}}</td><td>{{.Errors}}</td><td>{{.CPU}}</td><td>{{.Memory}}</td><td>{{.Validity}}{{if .Message}} <span class="muted">{{.Message}}</span>{{end}}</td>{{if $.Compared}}<td{{with .Baseline}} class="{{.Verdict}}"{{end}}>{{with .Baseline}}{{.Verdict}}{{else}}–{{end}}</td>{{end}}</tr>
{{end}}</table>
{{range .Scenarios}}<h2>Scenario {{.Name}}</h2>
{{range .Spectrum}}{{.}}{{end}}{{.Rate}}{{.Latency}}{{.Throughput}}{{.CPU}}{{.Memory}}
{{end}}
<h2>Trials</h2>
<table><tr><th>#</th><th>trial</th><th>phase</th><th>message</th></tr>
{{range .Run.Status.Trials}}<tr{{if eq .Phase "Failed"}} class="bad"{{end}}><td>{{.Index}}</td><td>{{.Name}}</td><td>{{.Phase}}</td><td style="text-align:left;white-space:pre-wrap">{{.Message}}</td></tr>
{{end}}</table>
<h2>Conditions</h2>
<table><tr><th>type</th><th>status</th><th>reason</th><th>message</th></tr>
{{range .Run.Status.Conditions}}<tr><td>{{.Type}}</td><td>{{.Status}}</td><td>{{.Reason}}</td><td style="text-align:left">{{.Message}}</td></tr>
{{end}}</table>
</body></html>
`))
