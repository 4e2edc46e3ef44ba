package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/changepoint"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// jitter is a fixed ±1.5% pattern, so fixtures have noise but tests no randomness.
var jitter = []int64{0, 7, -5, 3, -8, 6, -2, 4, -6, 1, 8, -3, 5, -7, 2, -4, 6, -1}

// finishedRun is run i of a history: go/ping@200 at this p50 (µs, over five repetitions,
// with CPU), and a capacity search's answer for go/search when capacity > 0.
func finishedRun(name string, i int, p50 int64, cpuMillicores int64, capacity int32) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}}, Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}}}
	for rep := range 5 {
		v := p50 + p50*jitter[(i+rep)%len(jitter)]/500
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: fmt.Sprintf("%s-%d", name, rep), Target: "go", Scenario: "ping",
			LoadPoint: 200, Repetition: int32(rep + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: 200_000, P50Micros: v, P99Micros: 3 * v, CPUMillicores: cpuMillicores}})
	}
	start := metav1.NewTime(epoch.Add(time.Duration(i) * time.Hour))
	run.Status.StartedAt, run.Status.FinishedAt = &start, &start
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	if capacity > 0 {
		run.Status.Search = []benchv1.CapacitySearch{{Target: "go", Scenario: "search", Phase: benchv1.SearchDone, CapacityRPS: capacity}}
	}
	return run
}

// writeResults writes run as `run --local` does, in root/NAME.
func writeResults(t *testing.T, root string, run *benchv1.BenchmarkRun) {
	t.Helper()
	dir := filepath.Join(root, run.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteOutputs(dir, run); err != nil {
		t.Fatal(err)
	}
}

func analyze(t *testing.T, dir string) *Report {
	t.Helper()
	runs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func series(rep *Report, figure string) Series {
	for _, s := range rep.Series {
		if s.Figure == figure {
			return s
		}
	}
	return Series{}
}

// Results folders written out of order are read in time order; p50 +20% from run 9 of 12 is
// a change point at run 9, Slower and recent; CPU unchanged has none.
func TestRegressionFoundAtItsRun(t *testing.T) {
	dir := t.TempDir()
	for _, i := range []int{5, 0, 11, 3, 9, 1, 7, 2, 10, 4, 8, 6} {
		p50 := int64(500)
		if i >= 9 {
			p50 = 600
		}
		writeResults(t, dir, finishedRun(fmt.Sprintf("bench-%02d", i), i, p50, 100, 0))
	}
	rep := analyze(t, dir)
	if len(rep.Runs) != 12 || rep.Runs[0].Name != "bench-00" || rep.Runs[11].Name != "bench-11" {
		t.Fatalf("runs: %+v", rep.Runs)
	}
	s := series(rep, FigureP50)
	if s.Points != 12 || len(s.ChangePoints) != 1 {
		t.Fatalf("%+v", s)
	}
	c := s.ChangePoints[0]
	if c.Run != 9 || c.RunName != "bench-09" || c.Direction != Slower || !c.Recent || c.ChangePercent < 18 || c.ChangePercent > 22 || c.PValue > changepoint.DefaultMaxPValue {
		t.Fatalf("%+v", c)
	}
	if p99 := series(rep, FigureP99); len(p99.ChangePoints) != 1 || p99.ChangePoints[0].Run != 9 {
		t.Fatalf("p99: %+v", p99)
	}
	// 100 millicores at 200 req/s is 500 µs of CPU a request whatever the latency.
	if cpu := series(rep, FigureCPU); cpu.Points != 12 || len(cpu.ChangePoints) != 0 {
		t.Fatalf("cpu: %+v", cpu)
	}
	if !rep.Regressed || rep.Regressions != 2 {
		t.Fatalf("p50 and p99 are new regressions: %d", rep.Regressions)
	}
	var out strings.Builder
	if err := WriteText(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"12 runs from 2026-01-01T00:00:00Z (bench-00)", "go/ping@200", "#10 bench-09", "+19.8%", "Slower ALERT NEW", "2 regression(s) starting within the newest 5 runs", "none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// An old regression, an improvement, and a capacity drop: only the capacity drop, recent,
// is a new regression (lower capacity is the slower direction).
func TestDirectionsAndAge(t *testing.T) {
	dir := t.TempDir()
	for i := range 24 {
		p50, capacity := int64(500), 1000+int32(jitter[i%len(jitter)])
		switch {
		case i >= 6 && i < 20:
			p50 = 700 // slower from run 6: old
		case i >= 20:
			p50 = 450 // faster from run 20: recent
		}
		if i >= 20 {
			capacity = 800 + int32(jitter[i%len(jitter)])
		}
		writeResults(t, dir, finishedRun(fmt.Sprintf("r%02d", i), i, p50, 100, capacity))
	}
	rep := analyze(t, dir)
	p50 := series(rep, FigureP50)
	if len(p50.ChangePoints) != 2 || p50.ChangePoints[0].Run != 6 || p50.ChangePoints[0].Direction != Slower || p50.ChangePoints[0].Recent ||
		p50.ChangePoints[1].Run != 20 || p50.ChangePoints[1].Direction != Faster || !p50.ChangePoints[1].Recent {
		t.Fatalf("p50: %+v", p50.ChangePoints)
	}
	capSeries := series(rep, FigureCapacity)
	if capSeries.Key != (Key{Target: "go", Scenario: "search"}) || len(capSeries.ChangePoints) != 1 || capSeries.ChangePoints[0].Run != 20 || capSeries.ChangePoints[0].Direction != Slower {
		t.Fatalf("capacity: %+v", capSeries)
	}
	if rep.Regressions != 1 {
		t.Fatalf("only the capacity drop is a new regression: %d", rep.Regressions)
	}
	// Narrowed to p50, nothing recent is a regression.
	runs, _ := Load(dir)
	rep, err := Analyze(runs, Options{Figures: []string{FigureP50}})
	if err != nil || rep.Regressed || len(rep.Series) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := Analyze(runs, Options{Figures: []string{"p42"}}); err == nil || !strings.Contains(err.Error(), `"p42"`) {
		t.Fatalf("%v", err)
	}
}

// A cluster export (a List, and a multi-document file) reads the same as results folders;
// the same run in both counts once; other files are skipped; a broken status.yaml is an
// error naming the file.
func TestLoadFormats(t *testing.T) {
	dir := t.TempDir()
	var items []benchv1.BenchmarkRun
	for i := range 6 {
		r := finishedRun(fmt.Sprintf("c%d", i), i, 500, 100, 0)
		r.APIVersion, r.Kind, r.Namespace = benchv1.GroupVersion.String(), "BenchmarkRun", "bench"
		items = append(items, *r)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	data, err := yaml.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "export.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var docs []string
	for i := 3; i < 8; i++ { // c3..c5 again, then two new ones
		r := finishedRun(fmt.Sprintf("c%d", i), i, 500, 100, 0)
		r.APIVersion, r.Kind, r.Namespace = benchv1.GroupVersion.String(), "BenchmarkRun", "bench"
		d, _ := yaml.Marshal(r)
		docs = append(docs, string(d))
	}
	if err := os.WriteFile(filepath.Join(dir, "more.yml"), []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`[1, 2]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}) {
		t.Fatalf("%v", names)
	}

	// --name: the runs of one benchmark, by name or by the schedule that made them.
	other := finishedRun("other", 9, 500, 100, 0)
	other.Labels = map[string]string{benchv1.LabelSchedule: "nightly"}
	writeResults(t, dir, other)
	if all, err := Load(dir); err != nil || len(all) != 9 || len(Named(all, "c3")) != 1 || len(Named(all, "nightly")) != 1 || len(Named(all, "none")) != 0 {
		t.Fatalf("%d runs, %v", len(all), err)
	}

	bad := filepath.Join(dir, "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "status.yaml"), []byte("apiVersion: v1\nkind: BenchmarkRun\nspec: {targets: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), filepath.Join("broken", "status.yaml")) {
		t.Fatalf("%v", err)
	}
	if _, err := Load(filepath.Join(dir, "export.yaml")); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("%v", err)
	}
	undated := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(undated, []byte("apiVersion: gauntlet.dev/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: u}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Dir(undated)); err == nil || !strings.Contains(err.Error(), "no status.startedAt") {
		t.Fatalf("%v", err)
	}
}

// Runs held only as their figures (RunRows, as a schedule's history keeps them) analyse the
// same as the runs themselves.
func TestAnalyzeRowsOnly(t *testing.T) {
	var full, rows []Run
	for i := range 12 {
		p50 := int64(500)
		if i >= 8 {
			p50 = 600
		}
		br := finishedRun(fmt.Sprintf("r%02d", i), i, p50, 100, 900)
		full = append(full, Run{Name: br.Name, Time: br.Status.StartedAt.Time, Run: br})
		rows = append(rows, Run{Name: br.Name, Time: br.Status.StartedAt.Time, Rows: RunRows(br)})
	}
	if got := RunRows(full[0].Run); len(got) != 2 || got[0].Key != (Key{Target: "go", Scenario: "ping", LoadPoint: 200}) ||
		got[1].Key != (Key{Target: "go", Scenario: "search"}) || got[1].Values[FigureCapacity] != 900 {
		t.Fatalf("%+v", got)
	}
	a, err := Analyze(full, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Analyze(rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Series) != len(b.Series) || a.Regressions != b.Regressions || a.Regressions == 0 {
		t.Fatalf("%+v\n%+v", a, b)
	}
	for i := range a.Series {
		if !slices.EqualFunc(a.Series[i].ChangePoints, b.Series[i].ChangePoints, func(x, y Change) bool { return x == y }) {
			t.Fatalf("%+v\n%+v", a.Series[i], b.Series[i])
		}
	}
	if p50 := series(b, FigureP50); len(p50.ChangePoints) != 1 || p50.ChangePoints[0].Run != 8 {
		t.Fatalf("%+v", p50)
	}
}
