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

// wireRow makes a row's latency of record the wire's, at k6's figures.
func wireRow(r benchv1.ResultRow) benchv1.ResultRow {
	r.LatencySource = benchv1.LatencyWire
	r.Wire = &benchv1.LatencyStats{P50Micros: r.P50Micros, P99Micros: r.P99Micros}
	return r
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
		// k6 set the rate of the fast targets: their rates are lower bounds. A busy k6 that
		// did not set the rate (GeneratorBound alone) leaves the rate the target's.
		"bound": runOf(benchv1.LoadModelClosed,
			row("cpython-sync", 50, st(799, 780, 810), st(200_000, 190_000, 210_000), 0, "GeneratorLimited"),
			row("pypy-sync", 50, st(187, 180, 190), st(460_000, 450_000, 470_000), 0),
			row("node", 50, st(1126, 1100, 1150), st(90_000, 85_000, 95_000), 0, "GeneratorLimited"),
			row("eventlet", 50, st(328, 320, 335), st(1_040_000, 1_000_000, 1_100_000), 0),
			row("tornado", 50, st(1200, 1150, 1250), st(90_000, 85_000, 95_000), 0),
			row("busy", 50, st(1126, 1100, 1150), st(90_000, 85_000, 95_000), 0, "GeneratorBound")),
		// One connection: the wire's latency of a row k6 limited is still the target's.
		"one": runOf(benchv1.LoadModelClosed,
			wireRow(row("sync", 1, st(900, 880, 920), st(900, 880, 950), 0, "GeneratorLimited")),
			wireRow(row("eventlet", 1, st(1300, 1250, 1400), st(700, 690, 720), 0)),
			wireRow(row("sync", 10, st(900, 880, 920), st(900, 880, 950), 0, "GeneratorLimited")),
			wireRow(row("eventlet", 10, st(1300, 1250, 1400), st(700, 690, 720), 0))),
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
		{"a busy k6's rate is the target's", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "busy", B: "eventlet", Ratio: 3},
			Reproduced, "clears the threshold over every repetition: busy 1126 (1100–1150 req/s) vs eventlet"},
		{"a busy k6's timings are not", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "p99", A: "busy", B: "eventlet"},
			NotComparable, "busy's row is flagged GeneratorBound"},
		{"one connection: the wire is the target's", check{Kind: "ratio", Doc: "one", Scenario: "s", Metric: "p99", Point: 0, A: "eventlet", B: "sync", Ratio: 1.2},
			Reproduced, "sync 900µs (880µs–950µs) vs eventlet 700µs (690µs–720µs): 1.29×, needs ≥ 1.2×"},
		{"more connections: the wire is a lower bound", check{Kind: "ratio", Doc: "one", Scenario: "s", Metric: "p99", Point: 1, A: "eventlet", B: "sync", Ratio: 1.4},
			NotComparable, "a lower bound that does not decide it"},
		{"a bound on the slower side decides against", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "pypy-sync", B: "cpython-sync"},
			NotReproduced, "falls short even of the bound: pypy-sync 187 (180–190 req/s) vs cpython-sync ≥799 (780–810 req/s): 0.23×, needs > 1×"},
		{"a bound on the faster side decides for", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "node", B: "eventlet", Ratio: 1.7},
			Reproduced, "the bound alone clears the threshold"},
		{"a bound that does not reach the threshold", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "node", B: "eventlet", Ratio: 4},
			NotComparable, "a lower bound that does not decide it"},
		{"a bound is no latency without the wire", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "p99", A: "node", B: "eventlet"},
			NotComparable, "flagged GeneratorLimited"},
		{"ratio threshold met", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "tornado", B: "eventlet", Ratio: 3.4},
			Reproduced, "tornado 1200 (1150–1250 req/s) vs eventlet 328 (320–335 req/s): 3.66×, needs ≥ 3.4×"},
		{"a factor within both ends", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "tornado", B: "eventlet", Ratio: 3.4, MaxRatio: 4},
			Reproduced, "within the stated factors over every repetition: tornado 1200 (1150–1250 req/s) vs eventlet 328 (320–335 req/s): 3.66×, needs 3.4×–4×"},
		{"a factor beyond its upper end", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "tornado", B: "eventlet", MaxRatio: 1.3},
			NotReproduced, "beyond the stated factor"},
		{"a bound cannot show a factor's upper end", check{Kind: "ratio", Doc: "bound", Scenario: "s", Metric: "rps", A: "node", B: "eventlet", Ratio: 1.7, MaxRatio: 4},
			NotComparable, "a lower bound cannot place a ratio between two ends"},
		{"steadiest across load points", check{Kind: "steadiest", Doc: "ka", Scenario: "s", Metric: "p99", Point: 0, ToPoint: 1, A: "py", Targets: []string{"node"}},
			Reproduced, "py 9.00ms (8.80ms–9.10ms) to 9.00ms (8.80ms–9.10ms): 1.0×–1.0×; node 500µs (480µs–520µs) to 900µs (850µs–950µs): 1.6×–2.0×"},
		{"not the steadiest", check{Kind: "steadiest", Doc: "ka", Scenario: "s", Metric: "p99", Point: 0, ToPoint: 1, A: "node", Targets: []string{"py"}},
			NotReproduced, "another's factor is below it over every repetition"},
		{"rose more than another", check{Kind: "steeper", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, ToPoint: 1, Up: true, Targets: []string{"py"}, Than: []string{"node"}},
			Reproduced, "each factor above every other's over every repetition: py 100 (95.0–105 req/s) to 950 (930–960 req/s): 8.9×–10.1×; node"},
		{"rose less than another", check{Kind: "steeper", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, ToPoint: 1, Up: true, Targets: []string{"node"}, Than: []string{"py"}},
			NotReproduced, "node's factor is below py's over every repetition"},
		{"dropped more than another", check{Kind: "steeper", Doc: "ka", Scenario: "s", Metric: "rps", Point: 0, ToPoint: 1, Targets: []string{"node"}, Than: []string{"py"}},
			Reproduced, "node 900 (880–920 req/s) to 900 (880–920 req/s): 1.0×–1.0×; py 100 (95.0–105 req/s) to 950 (930–960 req/s): 0.1×–0.1×"},
		{"a tail's spread from p50 to p99 alike", check{Kind: "steeper", Doc: "ka", Scenario: "s", Metric: "p50", ToMetric: "p99", Up: true, Targets: []string{"py"}, Than: []string{"node"}},
			Inconclusive, "the factors' spreads overlap"},
		{"no factor from a bound", check{Kind: "steeper", Doc: "bound", Scenario: "s", Metric: "rps", ToDoc: "bound", Up: true, Targets: []string{"node"}, Than: []string{"eventlet"}},
			NotComparable, "node's rps is a lower bound"},
		{"a steeper check names both sides", check{Kind: "steeper", Doc: "ka", Scenario: "s", Metric: "rps", Targets: []string{"py"}},
			NotComparable, "needs targets and than"},
		{"worker scaling with no placement recorded", check{Kind: "ratio", Doc: "ka", Scenario: "s", Metric: "rps", A: "node", B: "py", TargetCPUs: 2},
			NotComparable, "needs the targets on 2 CPUs or more"},
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

// lastRunPage is the page generated from the recorded runs, from the repository's root as
// `make reproductions` writes it.
func lastRunPage(t *testing.T) string {
	t.Helper()
	out := t.TempDir() + "/reproductions.md"
	t.Chdir("../..")
	if err := generate("hack/reproductions/testdata/last-run", "hack/reproductions/published.yaml", out); err != nil {
		t.Fatal(err)
	}
	return readFile(t, out)
}

// claimLine is the page's row of the claim whose text begins so, or "" with an error.
func claimLine(t *testing.T, page, text string) string {
	t.Helper()
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "| "+text) && strings.Contains(line, "**") {
			return line
		}
	}
	t.Errorf("no claim %q on the page", text)
	return ""
}

// The committed page is what the generator writes from the recorded runs, byte for byte.
func TestPageIsGenerated(t *testing.T) {
	page := lastRunPage(t)
	if committed := readFile(t, "docs/reproductions.md"); committed != page {
		t.Error("docs/reproductions.md differs from the generator's output: run go run ./hack/reproductions -in hack/reproductions/testdata/last-run -out docs/reproductions.md")
	}
}

// Each flag is read for what it says: a busy k6 (GeneratorBound) leaves the target's rate,
// and the wire's latency at one connection, to the target; only GeneratorLimited makes a
// rate a lower bound. Seed 001's /db/ping order is decided by Node.js's and Python's own
// rates, and seed 002's eventlet is read from the wire at concurrency 1.
func TestLastRunFlagsReadForWhatTheyMean(t *testing.T) {
	page := lastRunPage(t)
	for _, c := range []struct{ claim, verdict, reason string }{
		{"/db/ping direct with Connection: close", "not reproduced", "nodejs 1122 (888–1310 req/s) vs python 1340 (1314–1498 req/s): 0.84×"},
		{"Python's throughput increases by 131%", "not reproduced", "python after 2651 (2208–3072 req/s) vs python before 6562 (4990–7656 req/s)"},
		{"CPython/Eventlet turns requests around about 30% slower", "not reproduced",
			"cpython-eventlet 520µs (519µs–561µs) of 3976 (3727–4275) requests per window vs cpython-sync 661µs (641µs–923µs)"},
	} {
		if line := claimLine(t, page, c.claim); !strings.Contains(line, "**"+c.verdict+"**") || !strings.Contains(line, c.reason) {
			t.Errorf("%q: want %s with %q, got %s", c.claim, c.verdict, c.reason, line)
		}
	}
	// The rows table: k6 set nginx's rate, the target's CPU set Python's.
	for _, want := range []string{
		"| nginx | ping | 10 conn | 3 | 19996.0 | wire | 13µs | 19µs | 188µs | 1.86ms | 2.37ms | 0% | 0.18 | no: GeneratorLimited |",
		"| python | ping | 10 conn | 3 | 6562.0 | wire | 995µs | 2.34ms | 4.80ms | 14.97ms | 6.11ms | 0% | 0.77 | yes |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks the row %s", want)
		}
	}
	if strings.Contains(page, "k6 is the bottleneck of every closed-model row") {
		t.Error("the page still calls k6 the bottleneck of every closed-model row")
	}
}

// The page describes the machine as each run had it: k6 on one CPU, the targets on the
// other, never "2 shared cores"; a claim about what workers add is undecidable on one CPU.
func TestLastRunPlacement(t *testing.T) {
	page := lastRunPage(t)
	for _, wrong := range []string{"shared cores", "share 2 CPUs", "2 shared x86 cores", "on 2 cores"} {
		if strings.Contains(page, wrong) {
			t.Errorf("the page says %q", wrong)
		}
	}
	want := "Placement: k6 on CPU 0; the targets, the null responder, PostgreSQL and PgBouncer on CPU 1."
	if n := strings.Count(page, want); n != 7 {
		t.Errorf("%d runs state their placement, want all 7", n)
	}
	line := claimLine(t, page, "Scaling Flask to 16 workers did not help")
	if !strings.Contains(line, "**not comparable**") || !strings.Contains(line, "here they had CPU 1 (status.placement), so the workers took turns on it") {
		t.Errorf("16 workers on one CPU decided a claim about workers: %s", line)
	}
}

// A verdict the setup made is no verdict: a rate held at a fifth of a core, a share of
// timeouts from 10 requests, mean memory for a claim about the peak, "slightly faster" at
// 4.58x, a p99.9 of 601 requests, a JIT still warming up; a percentile states the requests
// it rests on.
func TestLastRunSetupMadeVerdicts(t *testing.T) {
	page := lastRunPage(t)
	for _, c := range []struct{ claim, verdict, reason string }{
		{"All three handle 50k RPS", "not comparable", "fastapi used 0.22 (0.20–0.24 cores) of its 1 CPU at the scaled load"},
		{"Primes: Node.js timed out on 55 of 1,000 requests", "not comparable", "flask-16's windows held 10 requests (55 needed)"},
		{"Peak memory: Express 180 MB", "not comparable", "nestjs ≥107.7MiB (102.8MiB–124.3MiB)"},
		{"Node's asynchronous subsystem is slightly faster", "not reproduced", "beyond the stated factor over every repetition: node-connect 2403 (1858–2659 req/s) vs pypy-tornado 525 (472–677 req/s): 4.58×, needs > 1× and ≤ 1.3×"},
		{"Node.js is almost twice as fast", "not reproduced", "4.02×, needs 1.7×–2.2×"},
		{"Apostol has the tightest p99", "not comparable", "apostol's p99 is a lower bound (≥134µs (125µs–134µs)): a factor between bounds is no figure"},
		{"… at p99.9", "not comparable", "node-fastify's windows held 601 requests: their p99.9 is their slowest request"},
		{"… at p99 ", "not reproduced", "python-starlette 2.81ms (2.79ms–2.87ms) of 601 requests per window"},
		{"The big surprise is how well the PyPy/Sync workers perform", "not comparable", "pypy-sync's rate rose from each repetition to the next (442."},
	} {
		if line := claimLine(t, page, c.claim); !strings.Contains(line, "**"+c.verdict+"**") || !strings.Contains(line, c.reason) {
			t.Errorf("%q: want %s with %q, got %s", c.claim, c.verdict, c.reason, line)
		}
	}
}
