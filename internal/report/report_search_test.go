package report

import (
	"bytes"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/search"
)

// searchedRun is a finished run whose search on go found 480/s (a model target) and whose
// fixed point at 200/s has four repetitions.
func searchedRun(t *testing.T, name string, p50 int64) *benchv1.BenchmarkRun {
	t.Helper()
	run := &benchv1.BenchmarkRun{}
	run.Name = name
	run.Spec = benchv1.BenchmarkRunSpec{
		Targets: []benchv1.Target{{Name: "go", NodePool: "c7g"}}, NodePools: []benchv1.NodePool{{Name: "c7g", HourlyPrice: "0.36"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}, Repetitions: 4, Search: &benchv1.Search{Start: 100, Width: "0.05", MaxSteps: 16, Attempts: 3}},
		SLO:       &benchv1.SLO{P99: "50ms"},
	}
	planned, err := plan.Build(&run.Spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range planned {
		run.Status.Trials = append(run.Status.Trials, p.Status())
	}
	for {
		for i := range run.Status.Trials {
			tr := &run.Status.Trials[i]
			if tr.Phase != benchv1.TrialPending {
				continue
			}
			rate := int64(tr.LoadPoint)
			m := &benchv1.Measurement{Requests: rate * 10, AchievedMilliRPS: rate * 1000, P50Micros: p50 + int64(tr.Repetition), P90Micros: 2 * p50,
				P95Micros: 3 * p50, P99Micros: 4*p50 + rate, P999Micros: 5 * p50, MaxMicros: 9 * p50}
			if rate > 480 {
				m.AchievedMilliRPS, m.P99Micros = 480_000, 800_000
			}
			tr.Phase, tr.Result = benchv1.TrialSucceeded, m
		}
		if search.Advance(&run.Spec, &run.Status) == 0 {
			break
		}
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	run.Status.Search = search.Status(&run.Spec, run.Status.Trials)
	run.Status.Capacity = search.Summary(run.Status.Search)
	return run
}

// comparedRun is a searched run 30% slower than its baseline: every chart and column of
// the report has something to show.
func comparedRun(t *testing.T) *benchv1.BenchmarkRun {
	t.Helper()
	base := searchedRun(t, "before", 1000)
	run := searchedRun(t, "after", 1300)
	o, _ := compare.OptionsFrom(nil)
	compare.Apply(run, base, "results/before", o)
	return run
}

func TestReportShowsCapacityAndVerdicts(t *testing.T) {
	run := comparedRun(t)
	html, err := Report(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	for _, want := range []string{
		"Capacity under the SLO", "<b>480/s</b>", "$0.2083", // 0.36 $/h at 480/s
		"p99 against offered rate", "SLO 50.00ms", "go: capacity 480/s", // the rate chart with its lines
		"at each target&#39;s capacity: latency by percentile", // the spectrum of the answer
		"<th>shift [95% CI]</th>", `<td class="Slower">Slower</td>`, "29.9% [&#43;29.6, &#43;30.2]", "Compared with <b>before</b>",
		"<th>vs baseline</th>", "<b>Regressed: True</b>",
		`content="default-src 'none'`, // nothing leaves the page
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Every chart has data marks.
	for i, chart := range strings.Split(page, "<svg")[1:] {
		if !strings.Contains(chart[:strings.Index(chart, "</svg>")], `class="data"`) {
			t.Errorf("chart %d has no data", i)
		}
	}
	var b bytes.Buffer
	if err := WriteSearch(&b, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteComparison(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go      ping      480/s     Capacity  High", "4/4", "504/s", "$0.2083",
		"go/ping: 480/s; 504/s failed (RateShortfall", "Slower", "Regressed=True"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
