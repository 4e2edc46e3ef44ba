package main

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// st is a figure over three repetitions: median m, spread lo..hi.
func st(m, lo, hi int64) benchv1.Stat { return benchv1.Stat{Median: m, Min: lo, Max: hi} }

// row is a measured row of three repetitions: rate in req/s, p99 in µs, errors in ppm.
func row(target string, point int32, rate, p99 benchv1.Stat, errPPM int64, flags ...string) benchv1.ResultRow {
	milli := func(s benchv1.Stat) benchv1.Stat { return st(s.Median*1000, s.Min*1000, s.Max*1000) }
	return benchv1.ResultRow{Target: target, Scenario: "s", LoadPoint: point, Repetitions: 3,
		AchievedMilliRPS: milli(rate), P50Micros: st(p99.Median/4, p99.Min/4, p99.Max/4), P99Micros: p99,
		ErrorRatePPM: st(errPPM, errPPM, errPPM), Valid: len(flags) == 0, Flags: flags}
}

func runOf(model benchv1.LoadModel, rows ...benchv1.ResultRow) *run {
	br := &benchv1.BenchmarkRun{}
	br.Spec.Load.Model = model
	br.Status.Results = rows
	return &run{BR: br}
}

func TestDecide(t *testing.T) {
	runs := map[string]*run{
		// Two load points, as seed 001's 100 and 1,000 connections: at the lower one Python is
		// slow, at the higher one it is not. The claim names the lower one.
		"ka": runOf(benchv1.LoadModelClosed,
			row("node", 10, st(900, 880, 920), st(500, 480, 520), 0), row("py", 10, st(100, 95, 105), st(9000, 8800, 9100), 0),
			row("node", 100, st(900, 880, 920), st(900, 850, 950), 0), row("py", 100, st(950, 930, 960), st(9000, 8800, 9100), 0)),
		// A Flask that answered nothing: every request timed out.
		"failed": runOf(benchv1.LoadModelClosed,
			row("node", 10, st(1500, 1400, 1600), st(28_000, 27_000, 29_000), 0),
			row("flask", 10, st(1, 1, 1), st(20_000_000, 20_000_000, 20_000_000), 1_000_000)),
		// k6 was the bottleneck on the fast targets: their rates are lower bounds.
		"bound": runOf(benchv1.LoadModelClosed,
			row("cpython-sync", 50, st(799, 780, 810), st(200_000, 190_000, 210_000), 0, "GeneratorBound"),
			row("pypy-sync", 50, st(187, 180, 190), st(460_000, 450_000, 470_000), 0),
			row("node", 50, st(1126, 1100, 1150), st(90_000, 85_000, 95_000), 0, "GeneratorBound"),
			row("eventlet", 50, st(328, 320, 335), st(1_040_000, 1_000_000, 1_100_000), 0),
			row("tornado", 50, st(1200, 1150, 1250), st(90_000, 85_000, 95_000), 0)),
		// Spreads that overlap: 3 repetitions of two targets that sometimes swap places.
		"noisy": runOf(benchv1.LoadModelOpen,
			row("a", 500, st(500, 499, 501), st(2000, 1500, 9000), 0), row("b", 500, st(500, 499, 501), st(3000, 2500, 16_000), 0),
			row("c", 500, st(500, 499, 501), st(20_000, 18_000, 22_000), 0)),
		// One repetition: whatever the medians say, it is not enough.
		"once": runOf(benchv1.LoadModelOpen, func() benchv1.ResultRow {
			r := row("a", 500, st(500, 500, 500), st(2000, 2000, 2000), 0)
			r.Repetitions = 1
			return r
		}(), row("b", 500, st(500, 499, 501), st(9000, 8000, 10_000), 0)),
		"pgb": runOf(benchv1.LoadModelClosed,
			row("go", 10, st(2000, 1900, 2100), st(9000, 8000, 10_000), 597_000, "GeneratorBound", "MostlyFailed"),
			row("nodejs", 10, st(425, 400, 450), st(42_000, 40_000, 44_000), 0, "GeneratorBound")),
	}
	cases := []struct {
		name    string
		c       check
		verdict string
		reason  string
	}{
		{"the load point the claim names", check{Kind: "ratio", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, A: "node", B: "py", Ratio: 3},
			Reproduced, "node 900 (880–920 req/s) vs py 100 (95.0–105 req/s): 9.00×, needs ≥ 3×"},
		{"not the highest", check{Kind: "ratio", Doc: "ka", Scenario: "s", Metric: "rps", Point: -1, A: "node", B: "py", Ratio: 3},
			NotReproduced, "falls short over every repetition"},
		{"a failed row is refused", check{Kind: "ratio", Doc: "failed", Scenario: "s", Metric: "rps", A: "node", B: "flask", Ratio: 3.6},
			NotComparable, "flask's requests mostly failed (100% errors in its worst repetition"},
		{"a failed row's max is not a latency", check{Kind: "ratio", Doc: "failed", Scenario: "s", Metric: "p99", A: "flask", B: "node"},
			NotComparable, "mostly failed"},
		{"a failed row still shows its errors", check{Kind: "errors", Doc: "pgb", Scenario: "s", Targets: []string{"go"}, Clean: []string{"nodejs"}},
			Reproduced, "go 59.7% errors"},
		{"a bound on the slower side decides against", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "pypy-sync", B: "cpython-sync"},
			NotReproduced, "falls short even of the bound: pypy-sync 187 (180–190 req/s) vs cpython-sync ≥799 (780–810 req/s): 0.23×, needs > 1×"},
		{"a bound on the faster side decides for", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "node", B: "eventlet", Ratio: 1.7},
			Reproduced, "the bound alone clears the threshold"},
		{"a bound that does not reach the threshold", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "node", B: "eventlet", Ratio: 4},
			NotComparable, "a lower bound that does not decide it"},
		{"a bound is no latency", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "p99", A: "node", B: "eventlet"},
			NotComparable, "flagged GeneratorBound"},
		{"ratio threshold met", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "tornado", B: "eventlet", Ratio: 3.4},
			Reproduced, "tornado 1200 (1150–1250 req/s) vs eventlet 328 (320–335 req/s): 3.66×, needs ≥ 3.4×"},
		{"ratio threshold missed though faster", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "tornado", B: "eventlet", Ratio: 4},
			NotReproduced, "falls short"},
		{"spreads that overlap are inconclusive", check{Kind: "ratio", Doc: "noisy", Scenario: "s", Metric: "p99", A: "a", B: "b"},
			Inconclusive, "straddle"},
		{"all three ranked: one clear step does not hide an unclear one", check{Kind: "best", Doc: "noisy", Scenario: "s", Metric: "p99", A: "a", Targets: []string{"b", "c"}},
			Inconclusive, "c 20.00ms"},
		{"all three ranked: a wrong step decides", check{Kind: "order", Doc: "noisy", Scenario: "s", Metric: "p99", Targets: []string{"c", "a", "b"}},
			NotReproduced, ""},
		{"one repetition is inconclusive", check{Kind: "ratio", Doc: "once", Scenario: "s", Metric: "p99", A: "a", B: "b"},
			Inconclusive, "1 repetition(s), 3 needed; on the medians it would read reproduced"},
		{"holds the offered rate", check{Kind: "holds", Doc: "noisy", Scenario: "s", Targets: []string{"a", "b"}},
			Reproduced, "a 500 (499–501 req/s) of 500/s offered, 0% errors"},
		{"a change from one load point to another", check{Kind: "change", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, ToPoint: 1, Up: true, Ratio: 8, Targets: []string{"py"}},
			Reproduced, "py after 950 (930–960 req/s) vs py before 100 (95.0–105 req/s): 9.50×, needs ≥ 8×"},
		{"steady across load points", check{Kind: "change", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, ToPoint: 1, Tolerance: 0.1, Targets: []string{"node"}},
			Reproduced, "needs within 10%"},
		{"similar when they are not", check{Kind: "similar", Doc: "ka", Scenario: "s", Metric: "rps", A: "node", B: "py", Tolerance: 0.1},
			NotReproduced, "apart"},
		{"a point the run does not have", check{Kind: "ratio", Doc: "failed", Scenario: "s", Metric: "rps", Point: 1, A: "node", B: "flask"},
			NotComparable, "no load point 1"},
		{"a document that was not run", check{Kind: "ratio", Doc: "missing", Scenario: "s", Metric: "rps", A: "a", B: "b"}, NotRun, ""},
	}
	for _, c := range cases {
		v, why := decide(c.c, runs)
		if v != c.verdict || !strings.Contains(why, c.reason) {
			t.Errorf("%s: got %s (%s), want %s containing %q", c.name, v, why, c.verdict, c.reason)
		}
	}
}

// The published data parses strictly, every claim has a check or a reason it has none, and
// every check names a kind decide knows.
func TestPublishedData(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir, "published.yaml", dir+"/out.md"); err != nil {
		t.Fatal(err)
	}
	out := readFile(t, dir+"/out.md")
	for _, id := range []string{"000", "001", "002", "003", "004"} {
		if !strings.Contains(out, "## Seed "+id) {
			t.Errorf("seed %s missing from the page", id)
		}
	}
	if strings.Contains(out, "unknown check") {
		t.Errorf("a claim names an unknown check:\n%s", out)
	}
	raw, err := os.ReadFile("published.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var p published
	if err := yaml.UnmarshalStrict(raw, &p); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Seeds {
		if len(s.Tables) == 0 || len(s.Differences) == 0 || len(s.Claims) == 0 {
			t.Errorf("seed %s: %d tables, %d differences, %d claims: every seed needs its tables, its sample's differences and its claims",
				s.ID, len(s.Tables), len(s.Differences), len(s.Claims))
		}
	}
}

// A claim with neither a check nor the reason it has none is refused, naming it.
func TestClaimNeedsCheckOrReason(t *testing.T) {
	dir := t.TempDir()
	bad := "seeds:\n- id: \"9\"\n  claims:\n  - text: faster\n"
	if err := os.WriteFile(dir+"/p.yaml", []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	err := generate(dir, dir+"/p.yaml", dir+"/out.md")
	if err == nil || !strings.Contains(err.Error(), `seed 9 claims[0] ("faster")`) {
		t.Errorf("got %v", err)
	}
}

// The last run's rows render: the seeds' claims decided from them, each row from its 3
// repetitions; a row with one failed repetition shown invalid, its reason naming the worst
// repetition rather than the median of 0%.
func TestLastRun(t *testing.T) {
	dir := t.TempDir()
	if err := generate("testdata/last-run", "published.yaml", dir+"/out.md"); err != nil {
		t.Fatal(err)
	}
	out := readFile(t, dir+"/out.md")
	for _, want := range []string{
		"| flask-16 | primes | 10 conn | 3 | 1.0 | k6 |",
		"no: MostlyFailed",
		"flask's requests mostly failed (100% errors in its worst repetition, 0% the median)",
		"**reproduced**",
		"**not reproduced**",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(out, "3 needed") {
		t.Error("a claim was read from fewer than 3 repetitions")
	}
	if strings.Contains(out, "not run (the samples tier left no results") {
		t.Error("a document of the last run is missing from testdata")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
