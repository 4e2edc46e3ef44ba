package metrics

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

// These tests run the real k6 (hack/k6.sh) against a target on 127.0.0.1, remote-writing
// to the real Prometheus of TestMain, and compare the PromQL figures with k6's exact
// end-of-test summary of the same run.

func TestTrialMatchesK6Summary(t *testing.T) {
	testenv.Long(t)
	target := newTarget(t)
	const rate = 1000
	p := targetPlan(t, target.URL, "single", rate, time.Second, 3*time.Second)
	k := startK6(t, p, "0", true)
	res, start, end := k.wait(t)
	t.Logf("k6 exact: %d requests, %d failed, %d dropped; p50 %d p90 %d p95 %d p99 %d p99.9 %d max %d µs",
		res.Requests, res.FailedRequests, res.DroppedIterations,
		res.Latency.P50, res.Latency.P90, res.Latency.P95, res.Latency.P99, res.Latency.P999, res.Latency.Max)

	// The target's containers, as cAdvisor would report them over the window: a steady
	// 0.5 cores and 96 MiB, so the figures are exact whatever the scrapes' phase.
	app := cadvisorSteady("bench", "gauntlet-httptest-5d8f-q7x2z", 0.5, 96*mib, start, end, time.Second)
	pushSeries(t, app)

	r := newTestReader(t)
	r.ScrapeInterval = time.Second
	m, err := r.Trial(context.Background(), TrialQuery{TestID: "single", Start: start, End: end, Runners: 1,
		Namespace: "bench", PodRegex: "gauntlet-httptest-.*"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", m)
	samples := k.measuredDurations(t)
	sameAsSummary(t, samples, res)
	checkLatency(t, m, samples)
	if m.Requests != res.Requests || m.Errors != res.FailedRequests || m.DroppedIterations != res.DroppedIterations {
		t.Errorf("requests/errors/dropped: PromQL %d/%d/%d, k6 %d/%d/%d",
			m.Requests, m.Errors, m.DroppedIterations, res.Requests, res.FailedRequests, res.DroppedIterations)
	}
	// A tenth of the plan's requests hit /missing: the error count is not trivially zero.
	if want := res.Requests / 10; m.Errors < want*9/10 || m.Errors*1_000_000/m.Requests != m.ErrorRatePPM {
		t.Errorf("errors %d (rate %d ppm) of %d requests; the plan sends a tenth to /missing", m.Errors, m.ErrorRatePPM, m.Requests)
	}
	if d := math.Abs(float64(m.AchievedMilliRPS)/1000-res.AchievedRate) / res.AchievedRate; d > 0.01 {
		t.Errorf("achieved %d milli-rps, k6 %.3f rps: %.2f%% off, limit 1%%", m.AchievedMilliRPS, res.AchievedRate, 100*d)
	}
	checkOrdered(t, m)
	if m.CPUMillicores != 500 || m.CPUPeakMillicores != 500 || m.MemoryBytes != 96*mib || m.MemoryPeakBytes != 96*mib {
		t.Errorf("cpu %d/%d millicores, memory %d/%d bytes; want 500/500 and %d/%d",
			m.CPUMillicores, m.CPUPeakMillicores, m.MemoryBytes, m.MemoryPeakBytes, 96*mib, 96*mib)
	}
	// The warmup's requests are in Prometheus too, under phase=warmup: they must not count.
	if v := queryNumber(t, r, `sum(k6_http_reqs_total{testid="single",phase="warmup"})`, end.Add(time.Minute)); v < rate/10 {
		t.Errorf("warmup requests %v: the warmup's series are missing, so the test proves nothing about excluding them", v)
	}
}

func TestTwoRunnersMerge(t *testing.T) {
	testenv.Long(t)
	target := newTarget(t)
	p := targetPlan(t, target.URL, "two-runners", 500, time.Second, 3*time.Second)
	a, b := startK6(t, p, "a", true), startK6(t, p, "b", true)
	resA, startA, endA := a.wait(t)
	resB, startB, endB := b.wait(t)
	start, end := minTime(startA, startB), maxTime(endA, endB)
	// Each k6 made its final push before it exited: Load reads complete series.
	r := newTestReader(t)
	q := TrialQuery{TestID: "two-runners", Start: start, End: end, Runners: 2}
	m, err := r.Load(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("runner a: %d requests, p50 %d p99 %d µs; runner b: %d requests, p50 %d p99 %d µs",
		resA.Requests, resA.Latency.P50, resA.Latency.P99, resB.Requests, resB.Latency.P50, resB.Latency.P99)
	t.Logf("merged: %+v", m)

	if m.Requests != resA.Requests+resB.Requests || m.Errors != resA.FailedRequests+resB.FailedRequests {
		t.Errorf("merged requests %d errors %d; runners %d+%d requests, %d+%d errors",
			m.Requests, m.Errors, resA.Requests, resB.Requests, resA.FailedRequests, resB.FailedRequests)
	}
	// Every sample both runners wrote, each runner's first checked against its summary.
	samplesA, samplesB := a.measuredDurations(t), b.measuredDurations(t)
	sameAsSummary(t, samplesA, resA)
	sameAsSummary(t, samplesB, resB)
	all := append(samplesA, samplesB...)
	sort.Float64s(all)
	checkLatency(t, m, all)
	// A mixture's quantile lies between its parts' (up to bucket resolution).
	for _, c := range []struct {
		name      string
		got, x, y int64
	}{{"p50", m.P50Micros, resA.Latency.P50, resB.Latency.P50}, {"p99", m.P99Micros, resA.Latency.P99, resB.Latency.P99}} {
		if lo, hi := float64(min(c.x, c.y))/BucketRatio, float64(max(c.x, c.y))*BucketRatio; float64(c.got) < lo || float64(c.got) > hi {
			t.Errorf("merged %s %d µs is not between the runners' %d and %d µs", c.name, c.got, c.x, c.y)
		}
	}
	checkOrdered(t, m)

	// A runner whose pushes never arrived must not go unnoticed.
	q.Runners = 3
	if _, err := r.Load(context.Background(), q); err == nil || !strings.Contains(err.Error(), "2 runners") {
		t.Errorf("3 runners expected, 2 wrote: error %v", err)
	}
}

func TestLoadRefusesMissingData(t *testing.T) {
	testenv.Long(t)
	r := newTestReader(t)
	now := time.Now()
	q := TrialQuery{TestID: "never-ran", Start: now.Add(-time.Minute), End: now}
	if _, err := r.Load(context.Background(), q); err == nil || !strings.Contains(err.Error(), "no k6 requests") {
		t.Errorf("testid without samples: error %v", err)
	}
	// Quoted, a hostile test id is just a test id that never ran.
	q.TestID = `x"} or vector(1) #\`
	if _, err := r.Load(context.Background(), q); err == nil || !strings.Contains(err.Error(), "no k6 requests") {
		t.Errorf("hostile testid: error %v", err)
	}
	q.TestID = ""
	if _, err := r.Load(context.Background(), q); err == nil || !strings.Contains(err.Error(), "testID") {
		t.Errorf("empty testid: error %v", err)
	}
	q.TestID, r.Grace = "never-ran", 5*time.Minute
	if _, err := r.Load(context.Background(), q); err == nil || !strings.Contains(err.Error(), "grace") {
		t.Errorf("grace beyond the lookback: error %v", err)
	}
}

// cadvisorSteady is one container using cores and bytes steadily, scraped every step
// from a little before start to a little after end.
func cadvisorSteady(namespace, pod string, cores, bytes float64, start, end time.Time, step time.Duration) []series {
	labels := func(name string) map[string]string {
		return map[string]string{"__name__": name, "namespace": namespace, "pod": pod, "container": "app"}
	}
	cpu, mem := series{Labels: labels(cpuSeconds)}, series{Labels: labels(workingSet)}
	first := start.Truncate(step).Add(-3 * step)
	for at := first; !at.After(end.Add(3 * step)); at = at.Add(step) {
		cpu.Samples = append(cpu.Samples, sample{At: at, V: 50 + cores*at.Sub(first).Seconds()})
		mem.Samples = append(mem.Samples, sample{At: at, V: bytes})
	}
	return []series{cpu, mem}
}

func checkOrdered(t *testing.T, m benchv1.Measurement) {
	t.Helper()
	if !(0 < m.P50Micros && m.P50Micros <= m.P90Micros && m.P90Micros <= m.P95Micros && m.P95Micros <= m.P99Micros &&
		m.P99Micros <= m.P999Micros && m.P999Micros <= m.MaxMicros) {
		t.Errorf("percentiles out of order: %+v", m)
	}
}

// sameAsSummary checks that k6's JSON samples are the ones its summary describes.
func sameAsSummary(t *testing.T, samples []float64, res k6.Result) {
	t.Helper()
	if p50, p99 := micros(exactPercentile(samples, 0.5)), micros(exactPercentile(samples, 0.99)); int64(len(samples)) != res.Requests ||
		p50 != res.Latency.P50 || p99 != res.Latency.P99 {
		t.Fatalf("JSON samples: %d, p50 %d, p99 %d µs; k6 summary: %d, %d, %d", len(samples), p50, p99,
			res.Requests, res.Latency.P50, res.Latency.P99)
	}
}

func queryNumber(t *testing.T, r *Reader, query string, at time.Time) float64 {
	t.Helper()
	e := evaluator{r: r, ctx: context.Background(), at: at}
	v := e.value(query)
	if e.err != nil {
		t.Fatal(e.err)
	}
	return v.v
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Series that anyone who reaches Prometheus's receiver can write under a trial's testid
// pass every check of the reader: a counter and a native histogram that agree, one runner.
// Nothing in Prometheus tells them from a runner's, which is why the operator compares the
// answered count with the target's wire (results.SeriesBeyondWire).
func TestForgedSeriesPassTheReadersChecks(t *testing.T) {
	testenv.Long(t)
	now := time.Now()
	pushSeries(t, testprom.Forged("forged", "0", now.Add(-time.Second), 5000, 0.25))
	r := newTestReader(t)
	m, err := r.Load(context.Background(), TrialQuery{TestID: "forged", Start: now.Add(-10 * time.Second), End: now, Runners: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 5000 || m.Errors != 0 || m.P99Micros < 229_000 || m.P99Micros > 250_000 {
		t.Errorf("forged: %+v; want 5000 requests answered in about 250 ms", m)
	}
}
