package k6

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// One k6 loads a duet's two arms, each at the whole rate, and their arrivals take turns:
// each of B's requests lands about half an arrival interval after one of A's, with k6 on
// one CPU as the local mode pins it. Each arm's figures are its own.
func TestDuetArmsTakeTurns(t *testing.T) {
	const rate, measure = 200, 3 * time.Second // an arrival every 5 ms: B's 2.5 ms after A's
	recs := []*recorder{newRecorder(t), newRecorder(t)}
	p := duetPlan(t, rate, measure, recs[0].srv.URL, recs[1].srv.URL)
	var log bytes.Buffer
	res, err := Runner{Binary: k6Binary(t), Dir: t.TempDir(), Output: &log, CPUs: []int{0}}.RunDuet(context.Background(), p)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(res) != 2 {
		t.Fatalf("%d results for 2 arms", len(res))
	}
	for k, r := range res {
		want := rate * measure.Seconds()
		if math.Abs(float64(r.Requests)-want) > 0.03*want || r.Errors != 0 || r.Latency.P50 <= 0 {
			t.Errorf("arm %d: %+v, want about %.0f requests and no error", k, r, want)
		}
		if got := recs[k].phases["measure"]; got != int(r.Requests) || recs[k].total() < int(rate*(measure+time.Second).Seconds())*97/100 {
			t.Errorf("arm %d: its server saw %d measured requests, k6 counted %d for it", k, got, r.Requests)
		}
	}
	a, b := recs[0].arrivals, recs[1].arrivals
	var offsets []time.Duration
	for _, tb := range b {
		i, _ := slices.BinarySearchFunc(a, tb, func(x, y time.Time) int { return x.Compare(y) })
		if i > 0 {
			offsets = append(offsets, tb.Sub(a[i-1]))
		}
	}
	slices.Sort(offsets)
	q := func(p float64) time.Duration { return offsets[int(p*float64(len(offsets)-1))] }
	t.Logf("B after A: q25 %v, median %v, q75 %v", q(0.25), q(0.5), q(0.75))
	if med := q(0.5); med < 1750*time.Microsecond || med > 3250*time.Microsecond {
		t.Errorf("B's requests arrive a median %v after A's, want 2.5 ms ± 0.75 (half of the 5 ms interval)", med)
	}
}

// duetPlan is the duet's plan (workload.Duet) of one GET / per iteration at rate per arm,
// after a 1 s warmup, an arm per base URL, its target named a, b, ...
func duetPlan(t *testing.T, rate int, measure time.Duration, urls ...string) workload.Plan {
	t.Helper()
	var plans []workload.Plan
	for k, url := range urls {
		tg := tags()
		tg.Target = string(rune('a' + k))
		p, err := workload.Build(workload.Spec{BaseURL: url, Requests: []workload.Request{{Method: "GET", Path: "/", ExpectStatus: 200, Weight: 1}},
			Load: workload.Load{Model: workload.Open, Rate: rate}, KeepAlive: true, Warmup: time.Second, Measure: measure, Tags: tg})
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	p, err := workload.Duet(plans)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
