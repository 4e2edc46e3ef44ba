package results

import (
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func withWire(t benchv1.Trial, p50, p99 int64) benchv1.Trial {
	r := *t.Result
	r.Requests = 10_000
	r.Wire = &benchv1.WireLatency{Requests: 10_000, P50Micros: p50, P90Micros: p50 * 2, P95Micros: p50 * 3, P99Micros: p99, P999Micros: p99 * 2, MaxMicros: p99 * 4}
	t.Result = &r
	return t
}

func floorTrial(p99 int64) benchv1.Trial {
	return benchv1.Trial{Name: "floor-ping-1000", Target: "null-responder", Scenario: "ping", LoadPoint: 1000, Repetition: 1,
		Calibration: true, Phase: benchv1.TrialSucceeded,
		Result: &benchv1.Measurement{Requests: 10_000, AchievedMilliRPS: 1000000, P50Micros: 200, P99Micros: p99, MaxMicros: p99 * 2}}
}

func TestWireIsTheLatencyOfRecord(t *testing.T) {
	// k6's p99 1.5–1.9 ms misses the 2 ms SLO's p99 only once; the wire's 900 µs meets it.
	spec := runSpec()
	spec.SLO.P99 = "1ms"
	trials := []benchv1.Trial{withWire(measured(1, 1000100, 1500, 300, 0, 0), 90, 900), withWire(measured(2, 999900, 1900, 300, 0, 0), 95, 950),
		withWire(measured(3, 1000000, 1700, 300, 0, 0), 80, 800)}
	r := Aggregate(spec, trials)[0]
	if r.LatencySource != benchv1.LatencyWire || r.Wire == nil || r.Wire.P99Micros.Median != 900 || r.Wire.Requests.Median != 10_000 || r.Wire.P50Micros.Min != 80 {
		t.Fatalf("wire: %s %+v", r.LatencySource, r.Wire)
	}
	if r.P99Micros.Median != 1700 {
		t.Errorf("k6's figures stay in p99Micros: %+v", r.P99Micros)
	}
	if r.SLO != benchv1.VerdictMet {
		t.Errorf("the verdict reads the wire (900µs < 1ms): %s", r.SLO)
	}
	if h := Headline([]benchv1.ResultRow{r}); !strings.Contains(h, "900µs (wire)") {
		t.Errorf("headline %q", h)
	}

	// One repetition without a complete capture: k6 is the record for the whole row.
	trials[1].Result.Wire.Requests = 9_990
	r = Aggregate(spec, trials)[0]
	if r.LatencySource != benchv1.LatencyGenerator || r.Wire != nil || r.SLO != benchv1.VerdictMissed {
		t.Fatalf("incomplete capture: %s %+v %s", r.LatencySource, r.Wire, r.SLO)
	}
	if !strings.Contains(r.Message, "wire capture incomplete (9990 of 10000") {
		t.Errorf("message %q", r.Message)
	}
	if Record(r)[3] != 1700 {
		t.Errorf("record %v", Record(r))
	}

	// Every request seen, some never answered (k6 timed them out): the wire has no latency
	// for the slowest requests, so k6 is the record.
	trials[1].Result.Wire.Requests, trials[1].Result.Wire.Unanswered = 10_000, 40
	r = Aggregate(spec, trials)[0]
	if r.LatencySource != benchv1.LatencyGenerator || r.Wire != nil || !strings.Contains(r.Message, "40 unanswered") {
		t.Fatalf("unanswered requests: %s %+v %q", r.LatencySource, r.Wire, r.Message)
	}

	// One more request on the wire, never answered, and k6 counted no error: it was in
	// flight when the measured scenario ended, and k6 never counted it (seen in the lab:
	// 3,002 on the wire, 1 unanswered, 3,001 counted). The answered ones are k6's: complete.
	trials[1].Result.Wire.Requests, trials[1].Result.Wire.Unanswered = 10_001, 1
	r = Aggregate(spec, trials)[0]
	if r.LatencySource != benchv1.LatencyWire || r.Wire == nil {
		t.Fatalf("a request abandoned at the end: %s %+v %q", r.LatencySource, r.Wire, r.Message)
	}
	// The same with an error counted: the unanswered one may be k6's timeout, so not.
	trials[1].Result.Errors = 1
	if WireComplete(*trials[1].Result) {
		t.Errorf("an unanswered request beside a k6 error must not pass for one k6 never counted")
	}
}

func TestGeneratorFloorAndNoise(t *testing.T) {
	spec := runSpec()
	spec.SLO = nil
	// k6 p99 1.5–1.9 ms against a floor of 1.2 ms: under 2x the floor, the generator's.
	k6Only := []benchv1.Trial{floorTrial(1200), measured(1, 1000100, 1500, 300, 0, 0), measured(2, 999900, 1900, 300, 0, 0), measured(3, 1000000, 1700, 300, 0, 0)}
	rows := Aggregate(spec, k6Only)
	if len(rows) != 1 {
		t.Fatalf("the calibration trial must make no row: %+v", rows)
	}
	r := rows[0]
	if r.GeneratorFloor == nil || r.GeneratorFloor.P99Micros != 1200 || r.GeneratorFloor.P50Micros != 200 {
		t.Fatalf("floor %+v", r.GeneratorFloor)
	}
	if r.Valid || !slices.Contains(r.Flags, FlagGeneratorNoise) || r.Repetitions != 3 {
		t.Errorf("k6 p99 1.7ms vs floor 1.2ms must be GeneratorNoise: %+v", r)
	}
	// The same k6 figures with wire captures: the row stands on the wire, with a note.
	var wired []benchv1.Trial
	for _, tr := range k6Only {
		if !tr.Calibration {
			tr = withWire(tr, 90, 500)
		}
		wired = append(wired, tr)
	}
	r = Aggregate(spec, wired)[0]
	if !r.Valid || len(r.Flags) != 0 || !strings.Contains(r.Message, "mostly the generator's") {
		t.Errorf("with wire: valid %v flags %v message %q", r.Valid, r.Flags, r.Message)
	}
	// A floor well under half of k6's p99: the target's.
	r = Aggregate(spec, append([]benchv1.Trial{floorTrial(800)}, k6Only[1:]...))[0]
	if !r.Valid || slices.Contains(r.Flags, FlagGeneratorNoise) {
		t.Errorf("k6 p99 1.7ms vs floor 0.8ms is the target's: %+v", r.Flags)
	}
	// A floor of another load point does not apply.
	other := floorTrial(1200)
	other.LoadPoint = 2000
	if r = Aggregate(spec, append([]benchv1.Trial{other}, k6Only[1:]...))[0]; r.GeneratorFloor != nil || !r.Valid {
		t.Errorf("floor of 2000/s applied to 1000/s: %+v", r)
	}
}

func TestSharedCoresInvalidatesEveryRow(t *testing.T) {
	rows := Aggregate(runSpec(), []benchv1.Trial{measured(1, 1000100, 1500, 300, 0, 0)})
	ApplyPlacement(rows, &benchv1.Placement{GeneratorCPUs: "0", TargetCPUs: "1"})
	if !rows[0].Valid {
		t.Fatalf("disjoint CPUs must not flag: %+v", rows[0])
	}
	ApplyPlacement(rows, &benchv1.Placement{Shared: true, Message: "one CPU"})
	if rows[0].Valid || !slices.Contains(rows[0].Flags, FlagSharedCores) {
		t.Fatalf("shared CPUs: %+v", rows[0])
	}
}

// A runner beside the target in a cluster is stated on the row, not flagged: the placement
// alone does not say they contended.
func TestRunnerBesideTargetIsNoted(t *testing.T) {
	trials := []benchv1.Trial{measured(1, 1000100, 1500, 300, 0, 0), measured(2, 1000000, 1600, 300, 0, 0), measured(3, 999900, 1550, 300, 0, 0)}
	if r := Aggregate(runSpec(), trials)[0]; strings.Contains(r.Message, "beside") {
		t.Fatalf("runners apart: %q", r.Message)
	}
	trials[0].Result.SharedNodes = []string{"lab"}
	trials[2].Result.SharedNodes = []string{"lab", "node-b"}
	r := Aggregate(runSpec(), trials)[0]
	if !r.Valid || len(r.Flags) != 0 {
		t.Errorf("valid %v flags %v: sharing a node is noted, not flagged", r.Valid, r.Flags)
	}
	if want := "k6 ran beside the target on nodes lab, node-b in 2 of 3 repetitions: they shared their CPUs"; !strings.Contains(r.Message, want) {
		t.Errorf("message %q, want %q", r.Message, want)
	}
}

// A busy k6 with the wire as the record: its timings are not the row's, so it is noted, not
// flagged, in either model; only a k6 at its CPU limit in a closed model set the rate.
func TestBusyGeneratorWithWireRecord(t *testing.T) {
	busy := []benchv1.Trial{withWire(measured(1, 1000000, 1500, 1000, 0, 0), 90, 900)} // 1000m of a 2000m limit
	open := Aggregate(runSpec(), busy)[0]
	if !open.Valid || slices.Contains(open.Flags, FlagGeneratorBound) || !strings.Contains(open.Message, "wire figures are the record") {
		t.Errorf("open model: valid %v flags %v message %q", open.Valid, open.Flags, open.Message)
	}
	closed := runSpec()
	closed.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{1000}}
	busy[0].LoadPoint = 1000
	atLimit := withWire(measured(1, 1000000, 1500, 1800, 0, 0), 90, 900) // 1800m of 2000m: 90%
	r := Aggregate(closed, []benchv1.Trial{atLimit})[0]
	if r.Valid || !slices.Equal(r.Flags, []string{FlagGeneratorLimited}) || r.LatencySource != benchv1.LatencyWire ||
		!strings.Contains(r.Message, "k6 used 90% of its CPU: it set the rate") {
		t.Errorf("closed model, k6 at its limit: valid %v flags %v source %s message %q; want GeneratorLimited with the wire still the record",
			r.Valid, r.Flags, r.LatencySource, r.Message)
	}
}

// ceilingTrial is k6 against the null responder at 1000 connections: its own ceiling.
func ceilingTrial(milliRPS int64) benchv1.Trial {
	t := floorTrial(300)
	t.Result.AchievedMilliRPS = milliRPS
	return t
}

// In a closed model the rate is the target's unless k6 set it: a busy k6 (timings inflated)
// far under its own ceiling against the null responder leaves the rate to the target, and
// with the wire as the record the row is valid; near the ceiling, or with no ceiling to
// judge against, the rate is flagged GeneratorLimited.
func TestClosedModelRateLimitedByTargetOrGenerator(t *testing.T) {
	closed := runSpec()
	closed.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{1000}}
	closed.SLO = nil
	// k6 at 40% of its CPU, the target at 1,000 req/s against k6's 10,000 alone: seed 001's
	// /db/ping rows in the last recorded run (6-32% of the ceiling, k6 under half its CPU).
	target := func(milliRPS int64) []benchv1.Trial {
		var ts []benchv1.Trial
		for rep := int32(1); rep <= 3; rep++ {
			ts = append(ts, withWire(measured(rep, milliRPS+int64(rep)*1000, 5000, 800, 0, 0), 900, 4000))
		}
		return ts
	}
	r := Aggregate(closed, append(target(1_000_000), ceilingTrial(10_000_000)))[0]
	if !r.Valid || len(r.Flags) != 0 || r.AchievedMilliRPS.Median != 1_002_000 ||
		!strings.Contains(r.Message, "the rate stayed at or under 50% of k6's own against the null responder (10000 req/s): the target set it") ||
		!strings.Contains(r.Message, "wire figures are the record") {
		t.Errorf("target-limited, wire: valid %v flags %v rate %+v message %q; want a valid row, its rate the target's", r.Valid, r.Flags, r.AchievedMilliRPS, r.Message)
	}
	// The same without a wire capture: k6's timings are the record and inflated (invalid for
	// latency), but the rate is still the target's: not GeneratorLimited.
	var noWire []benchv1.Trial
	for _, tr := range target(1_000_000) {
		m := *tr.Result
		m.Wire = nil
		tr.Result = &m
		noWire = append(noWire, tr)
	}
	r = Aggregate(closed, append(noWire, ceilingTrial(10_000_000)))[0]
	if !slices.Equal(r.Flags, []string{FlagGeneratorBound}) {
		t.Errorf("target-limited, k6's timings: flags %v; want GeneratorBound alone (timings), the rate the target's", r.Flags)
	}
	// Near the ceiling in one repetition: 6,003 of 10,000 req/s.
	r = Aggregate(closed, append(target(6_000_000), ceilingTrial(10_000_000)))[0]
	if r.Valid || !slices.Equal(r.Flags, []string{FlagGeneratorLimited}) || !strings.Contains(r.Message, "reached 60% of k6's own") {
		t.Errorf("generator-limited: valid %v flags %v message %q; want GeneratorLimited", r.Valid, r.Flags, r.Message)
	}
	// No calibration trial: a busy k6 might have set the rate.
	r = Aggregate(closed, target(1_000_000))[0]
	if r.Valid || !slices.Equal(r.Flags, []string{FlagGeneratorLimited}) || !strings.Contains(r.Message, "no calibration trial") {
		t.Errorf("no ceiling: valid %v flags %v message %q; want GeneratorLimited", r.Valid, r.Flags, r.Message)
	}
	// An open model is never GeneratorLimited: a generator behind its rate drops iterations.
	r = Aggregate(runSpec(), []benchv1.Trial{measured(1, 1000000, 1500, 1990, 0, 0)})[0]
	if slices.Contains(r.Flags, FlagGeneratorLimited) || !slices.Contains(r.Flags, FlagGeneratorBound) {
		t.Errorf("open model, k6 at its limit: flags %v; want GeneratorBound, not GeneratorLimited", r.Flags)
	}
}

func TestSeriesBeyondWire(t *testing.T) {
	wire := func(requests, unanswered, dropped int64) *benchv1.WireLatency {
		return &benchv1.WireLatency{Requests: requests, Unanswered: unanswered, DroppedPackets: dropped}
	}
	// errs is a whole capture that also saw error responses.
	errs := func(requests, unanswered, errorResponses int64) *benchv1.WireLatency {
		return &benchv1.WireLatency{Requests: requests, Unanswered: unanswered, ErrorResponses: errorResponses}
	}
	for _, c := range []struct {
		name   string
		m      benchv1.Measurement
		forged bool
	}{
		{"equal", benchv1.Measurement{Requests: 3000, Wire: wire(3000, 0, 0)}, false},
		{"no capture", benchv1.Measurement{Requests: 3000}, false},
		{"packets dropped: the wire may have missed them", benchv1.Measurement{Requests: 3000, Wire: wire(2990, 0, 3)}, false},
		{"refused connections: errors never on the wire", benchv1.Measurement{Requests: 3000, Errors: 40, Wire: wire(2960, 0, 0)}, false},
		{"timeouts: on the wire, unanswered", benchv1.Measurement{Requests: 3000, Errors: 5, Wire: wire(3000, 5, 0)}, false},
		{"answered requests the wire never carried", benchv1.Measurement{Requests: 4000, Wire: wire(3000, 0, 0)}, true},
		{"one more answered than the wire's answers", benchv1.Measurement{Requests: 3000, Errors: 4, Wire: wire(3000, 5, 0)}, true},
		// 1,000 requests, 300 answered 503; the series say 700 requests and no error.
		{"failed requests left out of the series", benchv1.Measurement{Requests: 700, Wire: errs(1000, 0, 300)}, true},
		{"failed requests counted as successes", benchv1.Measurement{Requests: 1000, Errors: 10, Wire: errs(1000, 0, 300)}, true},
		{"timeouts the series left out", benchv1.Measurement{Requests: 1000, Errors: 300, Wire: errs(1000, 20, 300)}, true},
		{"error responses and timeouts all counted", benchv1.Measurement{Requests: 1000, Errors: 320, Wire: errs(1000, 20, 300)}, false},
		{"refused connections beside error responses", benchv1.Measurement{Requests: 1040, Errors: 340, Wire: errs(1000, 0, 300)}, false},
		{"dropped packets: error responses not compared", benchv1.Measurement{Requests: 700, Wire: &benchv1.WireLatency{Requests: 1000, ErrorResponses: 300, DroppedPackets: 1}}, false},
		// Requests in flight as k6 stopped: on the wire, unanswered, in none of k6's counts.
		{"abandoned at the window's end, no error", benchv1.Measurement{Requests: 995, Wire: errs(1000, 5, 0)}, false},
		{"abandoned at the window's end beside error responses", benchv1.Measurement{Requests: 995, Errors: 300, Wire: errs(1000, 5, 300)}, false},
		{"abandoned beside refused connections", benchv1.Measurement{Requests: 1005, Errors: 10, Wire: errs(1000, 5, 0)}, false},
		// One in flight as k6 stopped, answered with an error after k6 had gone: in none of
		// k6's counts, an error response on the wire.
		{"an error response to a request k6 abandoned", benchv1.Measurement{Requests: 999, Errors: 299, Wire: errs(1000, 0, 300)}, false},
		{"abandoned requests answered and unanswered", benchv1.Measurement{Requests: 990, Errors: 295, Wire: errs(1000, 5, 300)}, false},
		// No more can have been in flight than k6's virtual users (20 here): failures left
		// out of the series beyond that are not excused.
		{"more left out than k6 had in flight", benchv1.Measurement{Requests: 695, Wire: errs(1000, 5, 300)}, true},
		{"more unanswered left out than k6 had in flight", benchv1.Measurement{Requests: 970, Wire: errs(1000, 30, 0)}, true},
	} {
		why := SeriesBeyondWire(c.m, 20)
		if (why != "") != c.forged {
			t.Errorf("%s: %q, want forged %v", c.name, why, c.forged)
		}
		if c.forged && !strings.Contains(why, "written by something other than the trial's runners") {
			t.Errorf("%s: %q does not say what happened", c.name, why)
		}
	}
}
