package results

import (
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]int64{30, 10, 20})
	if s.Median != 20 || s.Min != 10 || s.Max != 30 || s.CILow != nil {
		t.Fatalf("n=3: %+v", s)
	}
	if s := Summarize([]int64{4, 1, 3, 2}); s.Median != 2 {
		t.Fatalf("even n takes the lower middle: %+v", s)
	}
	// n = 6: only (min, max) reaches 95% (P = 1 - 2/64 = 0.969).
	s = Summarize([]int64{6, 5, 4, 3, 2, 1})
	if s.CILow == nil || *s.CILow != 1 || *s.CIHigh != 6 {
		t.Fatalf("n=6: %+v", s)
	}
	// n = 10: P(x(2) <= m <= x(9)) = 1 - 2*11/1024 = 0.978; x(3)..x(8) would be 0.89.
	s = Summarize([]int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	if *s.CILow != 2 || *s.CIHigh != 9 {
		t.Fatalf("n=10: ci %d..%d", *s.CILow, *s.CIHigh)
	}
	if s := Summarize(nil); s != (benchv1.Stat{}) {
		t.Fatalf("empty: %+v", s)
	}
}

func measured(rep int32, milliRPS, p99, gen, dropped, errPPM int64) benchv1.Trial {
	return benchv1.Trial{Target: "go", Scenario: "ping", LoadPoint: 1000, Repetition: rep, Phase: benchv1.TrialSucceeded,
		Result: &benchv1.Measurement{AchievedMilliRPS: milliRPS, P50Micros: p99 / 4, P99Micros: p99, MaxMicros: p99 * 3,
			GeneratorCPUMillicores: gen, GeneratorCPULimitMillicores: 2000, DroppedIterations: dropped, ErrorRatePPM: errPPM, CPUMillicores: 500, MemoryBytes: 1 << 20}}
}

func runSpec() *benchv1.BenchmarkRunSpec {
	return &benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp", NodePool: "amd"}},
		NodePools: []benchv1.NodePool{{Name: "amd", HourlyPrice: "0.36"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{1000}},
		SLO:       &benchv1.SLO{P99: "2ms", ErrorRate: "0.001"},
	}
}

func TestAggregateValidRow(t *testing.T) {
	trials := []benchv1.Trial{measured(1, 1000100, 1500, 300, 0, 0), measured(2, 999900, 1900, 300, 0, 0),
		measured(3, 1000000, 1700, 300, 0, 0), {Target: "nginx", Scenario: "db", Phase: benchv1.TrialSkipped}}
	rows := Aggregate(runSpec(), trials)
	if len(rows) != 1 {
		t.Fatalf("rows: %+v", rows)
	}
	r := rows[0]
	if !r.Valid || len(r.Flags) != 0 || r.Repetitions != 3 || r.P99Micros.Median != 1700 || r.P99Micros.Min != 1500 {
		t.Fatalf("%+v", r)
	}
	if r.SLO != benchv1.VerdictMet {
		t.Errorf("verdict %s", r.SLO)
	}
	// $0.36 per hour at 1000 req/s = 3.6M requests per hour: $0.10 per million.
	if r.CostMicroUSDPerMillion == nil || *r.CostMicroUSDPerMillion != 100000 {
		t.Errorf("cost %v", r.CostMicroUSDPerMillion)
	}
	if r.CPUMillicores == nil || r.CPUMillicores.Median != 500 {
		t.Errorf("cpu %+v", r.CPUMillicores)
	}
	if h := Headline(rows); h != "best p99: go ping 1.70ms @ 1000" {
		t.Errorf("headline %q", h)
	}
}

func TestAggregateFlagsWhatCannotBeTrusted(t *testing.T) {
	cases := []struct {
		trial benchv1.Trial
		flag  string
	}{
		{measured(1, 1000000, 1000, 950, 0, 0), FlagGeneratorBound},
		{measured(1, 1000000, 1000, 100, 5, 0), FlagDroppedIterations},
		{measured(1, 989000, 1000, 100, 0, 0), FlagRateShortfall},
		{measured(1, 1000000, 1000, 100, 0, 1001), FlagErrorsAboveSLO},
		{benchv1.Trial{Target: "go", Scenario: "ping", LoadPoint: 1000, Repetition: 1, Phase: benchv1.TrialFailed, Message: "crashed"}, FlagFailedRepetitions},
	}
	for _, c := range cases {
		rows := Aggregate(runSpec(), []benchv1.Trial{c.trial, measured(2, 1000000, 1000, 100, 0, 0)})
		r := rows[0]
		if r.Valid || len(r.Flags) != 1 || r.Flags[0] != c.flag {
			t.Errorf("want only %s, got valid=%v flags=%v", c.flag, r.Valid, r.Flags)
		}
	}
	// 990/1000 is exactly 99%: still valid.
	if r := Aggregate(runSpec(), []benchv1.Trial{measured(1, 990000, 1000, 100, 0, 0)})[0]; !r.Valid {
		t.Errorf("99%% flagged: %v", r.Flags)
	}
	// A closed model has no offered rate.
	s := runSpec()
	s.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{1000}}
	if r := Aggregate(s, []benchv1.Trial{measured(1, 10, 1000, 100, 0, 0)})[0]; !r.Valid {
		t.Errorf("closed model flagged: %v", r.Flags)
	}
	// GeneratorBound is relative to the generator's own CPU: 950m of a 4-CPU runner is
	// far from busy, 950m of one core is not; no known limit, nothing to judge against.
	for _, c := range []struct {
		gen, limit int64
		bound      bool
	}{{950, 4000, false}, {950, 1000, true}, {1001, 4000, true}, {1000, 4000, false}, {950, 0, false}} {
		tr := measured(1, 1000000, 1000, c.gen, 0, 0)
		tr.Result.GeneratorCPULimitMillicores = c.limit
		r := Aggregate(runSpec(), []benchv1.Trial{tr})[0]
		if got := slices.Contains(r.Flags, FlagGeneratorBound); got != c.bound {
			t.Errorf("%dm of a %dm limit: GeneratorBound %v, want %v", c.gen, c.limit, got, c.bound)
		}
	}
	failed := Aggregate(runSpec(), []benchv1.Trial{{Target: "go", Scenario: "ping", LoadPoint: 1000, Repetition: 1, Phase: benchv1.TrialFailed, Message: "boom"}})[0]
	if failed.Valid || failed.Repetitions != 0 || !strings.Contains(failed.Message, "boom") || failed.SLO != benchv1.VerdictNone {
		t.Errorf("all failed: %+v", failed)
	}
}

func TestVerdictMissed(t *testing.T) {
	r := Aggregate(runSpec(), []benchv1.Trial{measured(1, 1000000, 2001, 100, 0, 0)})[0]
	if r.SLO != benchv1.VerdictMissed {
		t.Errorf("p99 2.001ms against 2ms: %s", r.SLO)
	}
}

func TestProgressAndFormat(t *testing.T) {
	p := Progress([]benchv1.Trial{{Phase: benchv1.TrialSucceeded}, {Phase: benchv1.TrialSkipped}, {Phase: benchv1.TrialRunning}, {}})
	if p != "2/4" {
		t.Errorf("progress %s", p)
	}
	for us, want := range map[int64]string{850: "850µs", 1860: "1.86ms", 2_300_000: "2.30s"} {
		if got := FormatMicros(us); got != want {
			t.Errorf("%d: %s, want %s", us, got, want)
		}
	}
}
