package k6

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/test/hostile"
)

// These tests run the real k6 against a recorder on 127.0.0.1, a few seconds each,
// one at a time (the machine has two cores).

func tags() workload.Tags {
	return workload.Tags{TestID: "test", Target: "recorder", Scenario: "s", LoadPoint: "1", Repetition: "1"}
}

func run(t *testing.T, s workload.Spec) (workload.Plan, Result) {
	t.Helper()
	p, err := workload.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := Runner{Binary: k6Binary(t), Dir: t.TempDir(), Output: &log}.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("%v\nk6 output:\n%s", err, log.String())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("k6 output:\n%s", log.String())
		}
	})
	t.Logf("%+v", res)
	return p, res
}

// picks counts, per request index, the requests a deterministic mix makes in n iterations.
func picks(reqs []workload.Request, n int) []int {
	m, counts := workload.NewMix(reqs), make([]int, len(reqs))
	for i := int64(0); i < int64(n); i++ {
		counts[m.Pick(i)]++
	}
	return counts
}

func TestOpenModelMeasuresOnlyTheMeasuredWindow(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	home, _ := workload.Lookup("smart-home")
	const rate, warmup, measure = 300, time.Second, 3 * time.Second
	p, res := run(t, workload.Spec{BaseURL: rec.srv.URL, Requests: home.Requests,
		// 100 VUs ready: this machine is shared, and a stall must not need a new VU.
		Load: workload.Load{Model: workload.Open, Rate: rate, PreAllocatedVUs: 100}, KeepAlive: true,
		Warmup: warmup, Measure: measure, Tags: tags()})

	if dev := math.Abs(res.AchievedRate-rate) / rate; dev > 0.02 {
		t.Errorf("achieved %.1f/s for %d/s offered (%.1f%% off, limit 2%%)", res.AchievedRate, rate, 100*dev)
	}
	l := res.Latency
	if !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
		t.Errorf("percentiles out of order: %+v", l)
	}
	// 30% of requests are commands held 2 ms by the server: p90 cannot be below 2 ms.
	if l.P90 < 2000 {
		t.Errorf("p90 %d µs, but 30%% of requests take at least 2000 µs", l.P90)
	}
	if res.Errors != 0 || res.DroppedIterations != 0 || rec.badBody != 0 {
		t.Errorf("errors %d, dropped %d, bad command bodies %d", res.Errors, res.DroppedIterations, rec.badBody)
	}

	// Warmup excluded: the server got warmup + measured requests; k6 counted the latter.
	total := rec.total()
	warmupReqs := total - int(res.Requests)
	if math.Abs(float64(warmupReqs)-rate*warmup.Seconds()) > 0.02*rate*warmup.Seconds() {
		t.Errorf("server got %d requests, k6 counted %d measured: %d in the warmup, want ~%v", total, res.Requests, warmupReqs, rate*warmup.Seconds())
	}
	// The phase header marks exactly k6's measured requests (internal/wire counts by it).
	if rec.phases["measure"] != int(res.Requests) || rec.phases["warmup"] != warmupReqs {
		t.Errorf("Gauntlet-Phase headers %v, k6 counted %d measured of %d", rec.phases, res.Requests, total)
	}
	// By the server's clock too, to within scheduling: the split is read from when requests
	// arrived, and a k6 stalled for a few ms on a busy machine (the envtest tier runs beside
	// the lab's) moves a few of them across it (889 of 900 seen once). The header count
	// above is the exact one.
	_, after := rec.splitAt(warmup)
	if math.Abs(float64(after)-float64(res.Requests)) > 0.03*float64(res.Requests) {
		t.Errorf("server saw %d requests after the first second, k6 counted %d", after, res.Requests)
	}

	// The script's mix and {id} rule are internal/workload's, iteration for iteration.
	want := picks(home.Requests, warmupReqs)
	for i, c := range picks(home.Requests, int(res.Requests)) {
		want[i] += c
	}
	for i, r := range home.Requests {
		if got := rec.paths[r.Method+" "+strings.Split(r.Path, "?")[0]]; got != want[i] {
			t.Errorf("%s %s: server got %d, the mix says %d", r.Method, r.Path, got, want[i])
		}
	}
	for id := range rec.ids {
		if id < 1 || id > 5 {
			t.Errorf("device id %d outside 1..5", id)
		}
	}
	// Keep-alive: one connection per VU, and the measured window reuses the warmup's VUs
	// and their connections (a second, cold set would make 200); a request cut off at the
	// warmup's end costs its VU a reconnect.
	if c := rec.conns.Load(); c > int64(p.PreAllocatedVUs)*5/4 || c*4 > int64(total) {
		t.Errorf("%d connections for %d requests from %d VUs with keep-alive", c, total, p.PreAllocatedVUs)
	}
	if res.GeneratorCores <= 0 || res.GeneratorCores > float64(runtime.NumCPU()) {
		t.Errorf("generator CPU %.3f cores, want within (0, %d]", res.GeneratorCores, runtime.NumCPU())
	}
}

func TestKeepAliveOffOpensAConnectionPerRequest(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	ping, _ := workload.Lookup("ping")
	_, res := run(t, workload.Spec{BaseURL: rec.srv.URL, Requests: ping.Requests,
		Load: workload.Load{Model: workload.Open, Rate: 100}, KeepAlive: false,
		Measure: time.Second, Tags: tags()})
	total := rec.total()
	// The one-connection-per-request invariant is what this test is about; how many arrivals a
	// loaded machine manages (dropped iterations) is not, so only a sanity floor.
	if conns := rec.conns.Load(); conns != int64(total) || total < 20 {
		t.Errorf("%d connections for %d requests; keep-alive off wants one each", conns, total)
	}
	if closing := rec.closing.Load(); closing != int64(total) {
		t.Errorf("%d of %d requests carried Connection: close", closing, total)
	}
	if res.Errors != 0 || int(res.Requests) != total {
		t.Errorf("errors %d, k6 counted %d of %d (no warmup)", res.Errors, res.Requests, total)
	}
}

func TestWrongStatusCountsAsAnError(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	reqs := []workload.Request{
		{Method: "GET", Path: "/ok", Weight: 6, ExpectStatus: 200},
		{Method: "GET", Path: "/wrong", Weight: 1, ExpectStatus: 200},  // answers 500
		{Method: "GET", Path: "/teapot", Weight: 2, ExpectStatus: 418}, // expected, not an error
		// 37 ids: no common period with the mix, so a wrong {id} rule shows in the counts.
		{Method: "GET", Path: "/doc/{id}", Weight: 3, ExpectStatus: 200, IDs: &workload.IDRange{Min: 11, Max: 47}},
	}
	_, res := run(t, workload.Spec{BaseURL: rec.srv.URL, Requests: reqs,
		Load: workload.Load{Model: workload.Open, Rate: 240}, KeepAlive: true,
		Measure: time.Second, Tags: tags()})
	n := int(res.Requests)
	want := picks(reqs, n)
	if res.Errors != int64(want[1]) || res.FailedRequests != int64(want[1]) {
		t.Errorf("errors %d (failed requests %d), want %d: every /wrong and nothing else", res.Errors, res.FailedRequests, want[1])
	}
	if math.Abs(res.ErrorRate-float64(want[1])/float64(n)) > 1e-12 {
		t.Errorf("error rate %v", res.ErrorRate)
	}
	// The mix interleaves: with weights 6/3/2/1 (stride 7 of 12) a request repeats the
	// previous one once per 12 (8%); picked in order it would be 8 of 12, picked at random
	// 35%. Arrival order is not exactly iteration order on a busy machine, hence the margin.
	if share := rec.repeatShare(); share > 0.25 {
		t.Errorf("%.0f%% of requests repeat the previous one; the mix should interleave", 100*share)
	}
	// The ids the server saw are exactly IDRange.At over the /doc iterations.
	wantIDs := map[int]int{}
	m := workload.NewMix(reqs)
	for i := int64(0); i < int64(n); i++ {
		if m.Pick(i) == 3 {
			wantIDs[reqs[3].IDs.At(i)]++
		}
	}
	if len(rec.ids) != len(wantIDs) {
		t.Errorf("server saw %d distinct ids, the rule gives %d", len(rec.ids), len(wantIDs))
	}
	for id, c := range wantIDs {
		if rec.ids[id] != c {
			t.Errorf("id %d: server saw it %d times, the rule %d", id, rec.ids[id], c)
		}
	}
}

// A target that passes verification and redirects the runners' requests (those carrying
// Gauntlet-Phase) to another host: k6 must not follow, and every redirected request is an
// error of the run, not a success measured on someone else's server.
func TestRedirectsAreErrorsNotFollowed(t *testing.T) {
	srv, err := hostile.Start(hostile.RedirectLoad)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ping, _ := workload.Lookup("ping")
	_, res := run(t, workload.Spec{BaseURL: srv.URL, Requests: ping.Requests,
		Load: workload.Load{Model: workload.Open, Rate: 50}, KeepAlive: true,
		Warmup: time.Second, Measure: time.Second, Tags: tags()})
	if hits := srv.SinkHits(); hits != 0 {
		t.Errorf("the redirect's other host received %d connections; k6 must follow no redirect", hits)
	}
	if res.Requests < 20 || res.Errors != res.Requests || res.ErrorRate != 1 {
		t.Errorf("requests %d, errors %d (rate %v): every redirected request must count as an error", res.Requests, res.Errors, res.ErrorRate)
	}
	if srv.Requests() < res.Requests {
		t.Errorf("the target read %d requests, k6 counted %d measured", srv.Requests(), res.Requests)
	}
}

func TestTooFewVUsDropIterations(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	const rate = 100
	_, res := run(t, workload.Spec{BaseURL: rec.srv.URL,
		Requests: []workload.Request{{Method: "GET", Path: "/slow", Weight: 1, ExpectStatus: 200}},
		Load:     workload.Load{Model: workload.Open, Rate: rate, PreAllocatedVUs: 2, MaxVUs: 2}, KeepAlive: true,
		Measure: time.Second, Tags: tags()})
	// Two VUs held 200 ms each serve ~10 arrivals a second; the other ~90 are dropped.
	if res.DroppedIterations < 50 {
		t.Errorf("dropped %d iterations, want most of %d", res.DroppedIterations, rate)
	}
	if got := res.Requests + res.DroppedIterations; got < rate-3 || got > rate+3 {
		t.Errorf("requests %d + dropped %d = %d, want every arrival of %d accounted for", res.Requests, res.DroppedIterations, got, rate)
	}
	if res.Latency.P50 < 200_000 {
		t.Errorf("p50 %d µs below the server's 200 ms hold", res.Latency.P50)
	}
	if rec.peak.Load() > 2 {
		t.Errorf("server saw %d requests at once from 2 VUs", rec.peak.Load())
	}
}

func TestClosedModelHoldsItsConnections(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	_, res := run(t, workload.Spec{BaseURL: rec.srv.URL,
		Requests: []workload.Request{{Method: "GET", Path: "/busy", Weight: 1, ExpectStatus: 200}},
		Load:     workload.Load{Model: workload.Closed, VUs: 3}, KeepAlive: true,
		Measure: time.Second, Tags: tags()})
	// 3 users, each waiting for its 10 ms answer before the next request.
	if peak := rec.peak.Load(); peak != 3 {
		t.Errorf("peak concurrency %d, want the 3 VUs", peak)
	}
	if c := rec.conns.Load(); c != 3 {
		t.Errorf("%d connections, want 3 kept alive", c)
	}
	if res.Requests < 30 || res.Requests > 3*100+3 || res.DroppedIterations != 0 {
		t.Errorf("%d requests (%d dropped) from 3 VUs over 1 s of 10 ms requests", res.Requests, res.DroppedIterations)
	}
}

func TestCancelKillsK6(t *testing.T) {
	testenv.Long(t)
	rec := newRecorder(t)
	ping, _ := workload.Lookup("ping")
	p, err := workload.Build(workload.Spec{BaseURL: rec.srv.URL, Requests: ping.Requests,
		Load: workload.Load{Model: workload.Open, Rate: 50}, KeepAlive: true, Measure: time.Minute, Tags: tags()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once the load is flowing
		for rec.total() < 10 {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err = Runner{Binary: k6Binary(t), Dir: dir}.Run(ctx, p)
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Run after cancel: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("Run took %v for a cancelled minute", took)
	}
	if pids := processesMentioning(dir); len(pids) > 0 {
		t.Errorf("k6 still running after cancel: pids %v", pids)
	}
	n := rec.total()
	time.Sleep(300 * time.Millisecond)
	if rec.total() != n {
		t.Errorf("requests still arriving after cancel")
	}
}

// processesMentioning lists processes whose command line contains s.
func processesMentioning(s string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), s) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
