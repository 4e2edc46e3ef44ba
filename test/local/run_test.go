package local_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/cpuset"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

// A real run of two targets, two repetitions, seconds long: every figure is there, in
// order, at the offered rate, and nothing is left running.
func TestRunTwoTargets(t *testing.T) {
	testenv.Long(t)
	const rate = 200
	c, code := runValid(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: two-targets}
spec:
  targets:
  - {name: go, preset: go-nethttp}
  - {name: nginx, preset: nginx}
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [200], maxVUs: 50, warmup: 1s, duration: 3s, repetitions: 2}
`, 2*time.Minute)
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	run := c.status(t)
	st := run.Status
	if st.Phase != benchv1.PhaseSucceeded || st.Progress != "5/5" || st.StartedAt == nil || st.FinishedAt == nil {
		t.Fatalf("phase %s, progress %s, started %v, finished %v", st.Phase, st.Progress, st.StartedAt, st.FinishedAt)
	}
	// The generator floor first, then each repetition's round holds both targets, in the
	// order drawn from the seed status records.
	var order []string
	for _, tr := range st.Trials {
		order = append(order, tr.Target)
		if tr.Calibration {
			if tr.Phase != benchv1.TrialSucceeded || tr.Result == nil || tr.Result.P50Micros <= 0 {
				t.Errorf("calibration %s: phase %s, message %q, result %v", tr.Name, tr.Phase, tr.Message, tr.Result)
			}
			continue
		}
		m := tr.Result
		if tr.Phase != benchv1.TrialSucceeded || m == nil || tr.MeasureStart == nil || tr.MeasureEnd == nil {
			t.Fatalf("trial %s: phase %s, message %q, result %v", tr.Name, tr.Phase, tr.Message, m)
		}
		if got := tr.MeasureEnd.Sub(tr.MeasureStart.Time); got != 3*time.Second {
			t.Errorf("trial %s: measured window %s, want 3s", tr.Name, got)
		}
		if dev := math.Abs(float64(m.AchievedMilliRPS)/1000-rate) / rate; dev > 0.02 {
			t.Errorf("trial %s: achieved %d milli-req/s for %d/s offered (%.1f%% off)", tr.Name, m.AchievedMilliRPS, rate, 100*dev)
		}
		if !(0 < m.P50Micros && m.P50Micros <= m.P90Micros && m.P90Micros <= m.P99Micros && m.P99Micros <= m.P999Micros && m.P999Micros <= m.MaxMicros) {
			t.Errorf("trial %s: percentiles out of order: %+v", tr.Name, m)
		}
		if m.CPUMillicores <= 0 || m.CPUPeakMillicores < m.CPUMillicores || m.MemoryBytes < 1<<20 || m.MemoryPeakBytes < m.MemoryBytes {
			t.Errorf("trial %s: target CPU %d (peak %d) millicores, memory %d (peak %d) bytes", tr.Name,
				m.CPUMillicores, m.CPUPeakMillicores, m.MemoryBytes, m.MemoryPeakBytes)
		}
		if m.GeneratorCPUMillicores <= 0 || m.Errors != 0 || m.DroppedIterations != 0 {
			t.Errorf("trial %s: generator %d millicores, errors %d, dropped %d", tr.Name, m.GeneratorCPUMillicores, m.Errors, m.DroppedIterations)
		}
	}
	if len(order) != 5 || order[0] != "null-responder" || st.OrderSeed <= 0 ||
		!slices.Equal(sorted(order[1:3]), []string{"go", "nginx"}) || !slices.Equal(sorted(order[3:5]), []string{"go", "nginx"}) {
		t.Errorf("trial order %v (seed %d): want the floor, then go and nginx in each round", order, st.OrderSeed)
	}
	if len(st.Results) != 2 {
		t.Fatalf("%d result rows, want 2", len(st.Results))
	}
	for _, r := range st.Results {
		if r.Repetitions != 2 || !r.Valid || len(r.Flags) > 0 || r.CPUMillicores == nil || r.MemoryBytes == nil || r.GeneratorFloor == nil {
			t.Errorf("row %s: n %d, valid %v %v, cpu %v, memory %v", r.Target, r.Repetitions, r.Valid, r.Flags, r.CPUMillicores, r.MemoryBytes)
		}
		if !(0 < r.P50Micros.Median && r.P50Micros.Median <= r.P99Micros.Median && r.P99Micros.Median <= r.MaxMicros.Median) {
			t.Errorf("row %s: p50 %d, p99 %d, max %d µs", r.Target, r.P50Micros.Median, r.P99Micros.Median, r.MaxMicros.Median)
		}
		if dev := math.Abs(float64(r.AchievedMilliRPS.Median)/1000-rate) / rate; dev > 0.02 {
			t.Errorf("row %s: achieved %d milli-req/s", r.Target, r.AchievedMilliRPS.Median)
		}
	}
	// results.json holds the same rows; the report draws them; the table prints them.
	data, err := os.ReadFile(filepath.Join(c.out, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var rows []benchv1.ResultRow
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != 2 || rows[1].P99Micros != st.Results[1].P99Micros {
		t.Errorf("results.json: %v, %d rows", err, len(rows))
	}
	page, err := os.ReadFile(filepath.Join(c.out, report.ReportFile))
	if err != nil || strings.Count(string(page), "<svg") < 4 || strings.Contains(string(page), "http://cdn") {
		t.Errorf("report.html: %v, %d charts", err, strings.Count(string(page), "<svg"))
	}
	out := c.stdout.String()
	for _, want := range []string{"TARGET", "go ", "nginx ", "200/s", "yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if !strings.Contains(c.stderr.String(), "trial 5/5") {
		t.Errorf("no progress line for trial 5/5 on stderr")
	}
}

// A rate far beyond what k6 drives on this machine: the row is flagged invalid, so the
// figure is never passed off as the target's. --scale is recorded where it was applied.
func TestGeneratorBoundRowIsInvalid(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: generator-bound}
spec:
  targets: [{name: nginx, preset: nginx}]
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [1000000], maxVUs: 200, warmup: 1s, duration: 3s, repetitions: 1}
`, nil, "--scale", "0.02")
	code := c.wait(t, 2*time.Minute)
	run := c.status(t)
	if got := run.Annotations[transform.ScaleAnnotation]; got != "0.02" {
		t.Errorf("annotation %s = %q, want 0.02", transform.ScaleAnnotation, got)
	}
	if len(run.Status.Results) != 1 {
		t.Fatalf("%d rows", len(run.Status.Results))
	}
	r := run.Status.Results[0]
	if r.LoadPoint != 20000 || !slices.Equal(run.Spec.Load.Rates, []int32{20000}) {
		t.Errorf("load point %d, spec rates %v: want 1000000 × 0.02 = 20000", r.LoadPoint, run.Spec.Load.Rates)
	}
	bound := slices.ContainsFunc(r.Flags, func(f string) bool {
		return f == "GeneratorBound" || f == "DroppedIterations" || f == "RateShortfall"
	})
	if r.Valid || !bound {
		t.Errorf("row valid %v, flags %v: 20000/s cannot be driven here and must be flagged", r.Valid, r.Flags)
	}
	if run.Status.Headline != "no valid result" {
		t.Errorf("headline %q reports an invalid row", run.Status.Headline)
	}
	checkNoValidResult(t, run, code)
	if !strings.Contains(c.stdout.String(), "NO: ") || !strings.Contains(c.stderr.String(), "scaled by 0.02") {
		t.Errorf("the table does not flag the row, or the scale was not printed")
	}
	t.Logf("flags %v, achieved %d milli-req/s, generator CPU from trials: %d millicores", r.Flags,
		r.AchievedMilliRPS.Median, run.Status.Trials[1].Result.GeneratorCPUMillicores)
}

// The same document means the same here as in a cluster: k6 is held to the CPU the spec
// gives its runners, so a 100m runner cannot offer 1,000 req/s here either, where an
// unheld k6 on a whole core offers it easily.
func TestGeneratorHeldToItsRunners(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: generator-held}
spec:
  targets: [{name: nginx, preset: nginx}]
  scenarios: [{name: ping, workload: ping}]
  loadGenerator: {resources: {cpu: 100m, memory: 512Mi}}
  load: {rates: [1000], maxVUs: 50, warmup: 1s, duration: 3s, repetitions: 1}
`, nil)
	code := c.wait(t, 3*time.Minute)
	run := c.status(t)
	sz := run.Status.LoadGeneratorSizing
	if len(sz) != 1 || sz[0].Runners != 1 || sz[0].RunnerCPUMillicores != 100 ||
		!strings.Contains(sz[0].Reason, "held to the runners' total, CPU 100m and memory 512Mi") {
		t.Fatalf("status.loadGeneratorSizing %+v", sz)
	}
	for _, tr := range run.Status.Trials {
		m := tr.Result
		if tr.Phase != benchv1.TrialSucceeded || m == nil {
			t.Fatalf("trial %s: phase %s, message %q", tr.Name, tr.Phase, tr.Message)
		}
		// The CFS quota holds k6's mean over the window to its 100m, give or take a period.
		if m.GeneratorCPULimitMillicores != 100 || m.GeneratorCPUMillicores > 120 {
			t.Errorf("trial %s: k6 used %dm against a limit of %dm; want the runner's 100m, held", tr.Name, m.GeneratorCPUMillicores, m.GeneratorCPULimitMillicores)
		}
		// The host's steal is read on a target's trial's CPUs: the target side's and k6's
		// (the floor's trial is k6's own, never compared).
		if want := pinnedCPUs(t, run.Status.Placement); !tr.Calibration && (m.HostCPUs != want || m.HostStealMillicores > int64(want)*1000) {
			t.Errorf("trial %s: steal %dm over %d CPUs, want a share of the %d pinned", tr.Name, m.HostStealMillicores, m.HostCPUs, want)
		}
	}
	if len(run.Status.Results) != 1 {
		t.Fatalf("%d rows", len(run.Status.Results))
	}
	// With the wire as the record, a k6 that fell behind shows as the rate it could not
	// offer, as in a cluster (docs/measurement.md, "Validity").
	r := run.Status.Results[0]
	behind := slices.ContainsFunc(r.Flags, func(f string) bool {
		return f == "GeneratorBound" || f == "DroppedIterations" || f == "RateShortfall"
	})
	if r.Valid || !behind || r.AchievedMilliRPS.Median >= 990_000 {
		t.Errorf("row valid %v, flags %v, achieved %d milli-req/s: a 100m k6 cannot drive 1,000 req/s and must say so",
			r.Valid, r.Flags, r.AchievedMilliRPS.Median)
	}
	checkNoValidResult(t, run, code)
	t.Logf("flags %v, achieved %d milli-req/s", r.Flags, r.AchievedMilliRPS.Median)
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// pinnedCPUs is how many CPUs the placement gave k6 and the target side together.
func pinnedCPUs(t *testing.T, p *benchv1.Placement) int32 {
	t.Helper()
	if p == nil || p.Shared {
		t.Fatalf("placement %+v: want k6 and the targets pinned apart", p)
	}
	gen, err1 := cpuset.Parse(p.GeneratorCPUs)
	tgt, err2 := cpuset.Parse(p.TargetCPUs)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return int32(gen.Union(tgt).Size())
}
