package report

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

func TestReportAndTable(t *testing.T) {
	cpu := benchv1.Stat{Median: 420, Min: 400, Max: 450}
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: benchv1.LoadModelOpen},
		Scenarios: []benchv1.Scenario{{Name: "ping"}}}}
	run.Name = "r"
	run.Status.Results = []benchv1.ResultRow{
		{Target: "go", Scenario: "ping", LoadPoint: 400, Repetitions: 3, Valid: true, CPUMillicores: &cpu,
			AchievedMilliRPS: benchv1.Stat{Median: 400100}, P50Micros: benchv1.Stat{Median: 300, Min: 290, Max: 320},
			P99Micros: benchv1.Stat{Median: 2500}, MaxMicros: benchv1.Stat{Median: 9000}},
		{Target: "<b>x</b>", Scenario: "ping", LoadPoint: 400, Repetitions: 1, Flags: []string{"GeneratorBound"},
			AchievedMilliRPS: benchv1.Stat{Median: 350000}},
		// The wire is the record; k6's p99 is under 2x its floor and is starred.
		{Target: "nginx", Scenario: "ping", LoadPoint: 400, Repetitions: 1, Valid: true, LatencySource: benchv1.LatencyWire,
			AchievedMilliRPS: benchv1.Stat{Median: 400000}, P50Micros: benchv1.Stat{Median: 221}, P99Micros: benchv1.Stat{Median: 4900},
			Wire:           &benchv1.LatencyStats{P50Micros: benchv1.Stat{Median: 91}, P99Micros: benchv1.Stat{Median: 532}},
			GeneratorFloor: &benchv1.GeneratorFloor{P50Micros: 180, P99Micros: 3100}},
	}
	run.Status.Placement = &benchv1.Placement{GeneratorCPUs: "0", TargetCPUs: "1", Message: "k6 on CPUs 0; targets on 1"}
	run.Status.Trials = []benchv1.Trial{{Name: "nginx.home.400.r1", Target: "nginx", Scenario: "home",
		Phase: benchv1.TrialSkipped, Message: "nginx does not implement devices-status"}}
	now := metav1.Now() // taken with time.Now: carries a monotonic reading
	run.Status.StartedAt, run.Status.FinishedAt = &now, &now
	html, err := Report(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d charts, want the percentile spectrum, latency, throughput and CPU (memory was never sampled: no chart)", n)
	}
	if strings.Contains(page, "m=+") || !strings.Contains(page, "Started "+now.UTC().Format("2006-01-02 15:04:05")+" UTC") {
		t.Error("the header's times must be plain UTC timestamps, without Go's monotonic clock suffix")
	}
	// The spectrum overlays the targets at 400/s, median dots with min–max bars (go's p50 spread).
	if !strings.Contains(page, "ping @ 400/s: latency by percentile") || !strings.Contains(page, "go @ 400/s: min 290µs, max 320µs") {
		t.Error("no percentile spectrum with error bars")
	}
	for _, want := range []string{"<td>wire</td><td>91µs</td>", "<td>4.90ms*</td><td>180µs–3.10ms</td>", "generator floor 180µs–3.10ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>x</b>") || strings.Contains(page, "src=\"http") {
		t.Error("a target name reached the page unescaped, or the page loads something")
	}
	var b bytes.Buffer
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"400/s", "400.1", "300µs", "2.50ms", "0.42", "NO: GeneratorBound",
		"skipped nginx/home: nginx does not implement devices-status",
		"wire  91µs", "532µs", "221µs   4.90ms*  3.10ms", "*: k6's p99 is under 2x the generator floor", "CPUs: k6 on CPUs 0; targets on 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// A row whose repetitions all failed has no figures: it prints "–", never zeros that read as a
// measurement, and it cannot be the headline.
func TestUnmeasuredRowPrintsNoFigures(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: benchv1.LoadModelClosed},
		Scenarios: []benchv1.Scenario{{Name: "hello"}}}}
	run.Name = "r"
	run.Status.Results = []benchv1.ResultRow{
		{Target: "flask", Scenario: "hello", LoadPoint: 100, Repetitions: 0, Flags: []string{"FailedRepetitions"},
			Message: "repetition 1 failed: not timed"},
		{Target: "node", Scenario: "hello", LoadPoint: 100, Repetitions: 1, Valid: true,
			AchievedMilliRPS: benchv1.Stat{Median: 5_000_000}, P99Micros: benchv1.Stat{Median: 40_000}},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	var flaskLine string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "flask") {
			flaskLine = l
		}
	}
	if flaskLine == "" || strings.Count(flaskLine, NoFigure) != 13 || strings.Contains(flaskLine, "0µs") || strings.Contains(flaskLine, "0.0 ") {
		t.Errorf("unmeasured row should show %s for its 13 figures and no zeros:\n%s", NoFigure, b.String())
	}
	html, err := Report(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	flaskRow := page[strings.Index(page, "<td>flask</td>"):]
	flaskRow = flaskRow[:strings.Index(flaskRow, "</tr>")]
	if strings.Contains(flaskRow, "0µs") || strings.Count(flaskRow, "<td>"+NoFigure+"</td>") != 13 {
		t.Errorf("report: the unmeasured row should show %s, not zeros", NoFigure)
	}
	if h := results.Headline(run.Status.Results); !strings.Contains(h, "node") {
		t.Errorf("headline %q should name the measured row only", h)
	}
}

// Trial messages and names are text a tenant or a target chose: an escape sequence in
// them is printed as an escape, never sent to the terminal.
func TestTableEscapesControlSequences(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Status.Trials = []benchv1.Trial{{Name: "go.ping.100.r1", Target: "go", Scenario: "ping", Phase: benchv1.TrialFailed,
		Message: "the target said \x1b]0;pwned\x07\x1b[2J\u009b31m"}}
	var out strings.Builder
	if err := WriteTable(&out, run); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u009b") || !strings.Contains(out.String(), `\x1b]0;pwned\x07\x1b[2J\u009b31m`) {
		t.Errorf("table: %q: want the control characters escaped", out.String())
	}
}
