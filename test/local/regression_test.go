package local_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// primesPath is a CPU-bound request for go-nethttp (trial division up to n), about 1 ms of CPU.
const primesPath = "/api/cpu/primes?n=20000"

// cpuPerRequest measures, independently of gauntlet, the CPU time one request costs the
// target: 500 requests one after another, the process's CPU time (/proc) over them.
func cpuPerRequest(t *testing.T, tgt []int) time.Duration {
	t.Helper()
	url, stop := limitedTarget(t, tgt)
	defer stop()
	pid := serverPID(t)
	before := procCPU(t, pid)
	for i := 0; i < 500; i++ {
		resp, err := http.Get(url + primesPath)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return (procCPU(t, pid) - before) / 500
}

// regressionSpec is three go-nethttp targets, one worker each, on the CPU-bound request at
// about a tenth of their capacity (200/s: the CPU sampler's 10 ms ticks add up to 1% over a
// window), ten repetitions interleaved across them (base, same,
// slow, base, same, slow, ...): base and same are the same target measured twice, slow
// burns extra µs more CPU per request (EXTRA_CPU_MICROS). Interleaving puts the drift of
// this shared machine (the other work on it changes by the minute: back-to-back runs of an
// unchanged target came out +27% apart here) on every target alike; comparing separate
// runs would measure the machine. Even interleaved, one repetition's p50 moves by 10-25%
// here, so the minimum effect is 10%, and the unchanged pair may still come out
// Inconclusive (its 90% interval wider than ±10%) when the machine is busy: the test
// requires it never to be called a change, and NoChange when the repetitions are steady.
func regressionSpec(extra int64) string {
	return fmt.Sprintf(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: regression}
spec:
  targets:
  - {name: base, preset: go-nethttp, workers: 1}
  - {name: same, preset: go-nethttp, workers: 1, baselineTarget: base}
  - {name: slow, preset: go-nethttp, workers: 1, baselineTarget: base, env: [{name: EXTRA_CPU_MICROS, value: "%d"}]}
  scenarios: [{name: primes, requests: [{path: "%s"}]}]
  load: {rates: [200], maxVUs: 100, warmup: 1s, duration: 3s, repetitions: 10}
  baseline: {minEffect: "0.1"}
`, extra, primesPath)
}

// asRun is one target of the run as a run of its own, named name, with its target renamed
// "go": what a run of that target alone would have recorded.
func asRun(run *benchv1.BenchmarkRun, target, name string) *benchv1.BenchmarkRun {
	out := run.DeepCopy()
	out.Name = name
	out.Spec.Targets = nil
	for _, tg := range run.Spec.Targets {
		if tg.Name == target {
			tg.Name, tg.BaselineTarget = "go", "" // a run of its own has no pair
			out.Spec.Targets = append(out.Spec.Targets, tg)
		}
	}
	out.Status.Trials = nil
	for _, tr := range run.Status.Trials {
		if tr.Target == target {
			tr.Target = "go"
			out.Status.Trials = append(out.Status.Trials, tr)
		}
	}
	out.Status.Results = results.Aggregate(&out.Spec, out.Status.Trials)
	return out
}

// p50s are a run's valid repetitions of the metric compare judges (the wire's when every
// repetition was captured).
func p50s(run *benchv1.BenchmarkRun) []int64 {
	return compare.Sample(run, results.RowKey{Target: "go", Scenario: "primes", Point: 200}, "p50")
}

// The same target measured twice is never judged a change, and NoChange when its
// repetitions are steady; with 20% more CPU work per request (sized from an independent
// measurement) it is Slower at the 10% minimum effect set, on each metric whose unchanged
// pair resolved (and on at least one), never NoChange or Faster; gauntlet compare prints it
// from results folders and exits 3 on the regression; NoChange-against-NoChange verdicts
// drawn from the real repetitions rarely claim a change (the false-positive rate, printed).
func TestRegressionVerdicts(t *testing.T) {
	testenv.Long(t)
	_, tgt := placement(t)
	cost := cpuPerRequest(t, tgt)
	extra := cost.Microseconds() / 5
	c := start(t, regressionSpec(extra), nil)
	code := c.wait(t, 6*time.Minute)
	run := c.status(t)
	// The run judged same and slow against base itself (spec.targets[].baselineTarget),
	// from the same rounds; its exit status follows its Regressed condition.
	inRun := map[string]*benchv1.Comparison{}
	for _, r := range run.Status.Results {
		inRun[r.Target] = r.Baseline
	}
	if inRun["base"] != nil || inRun["same"] == nil || inRun["slow"] == nil || inRun["slow"].BaselineTarget != "base" {
		t.Fatalf("same-run comparisons: %+v", inRun)
	}
	if v := inRun["same"].Verdict; v == benchv1.VerdictSlower || v == benchv1.VerdictFaster {
		t.Errorf("the same target in the same run: %s %s, a false change", v, compare.FormatShift(*inRun["same"]))
	}
	wantCode := map[benchv1.RegressionVerdict]int{benchv1.VerdictSlower: 3}[inRun["slow"].Verdict]
	if inRun["slow"].Verdict == benchv1.VerdictInconclusive && inRun["same"].Verdict == benchv1.VerdictInconclusive {
		wantCode = 7 // no row reached a verdict: Regressed Unknown
	}
	if code != wantCode || !strings.Contains(run.Status.Verdict, " vs base: ") {
		t.Errorf("same-run verdicts same %s, slow %s: exit status %d, want %d; status.verdict %q", inRun["same"].Verdict, inRun["slow"].Verdict, code, wantCode, run.Status.Verdict)
	}
	t.Logf("same-run: %s (order seed %d)", run.Status.Verdict, run.Status.OrderSeed)
	base, same, slow := asRun(run, "base", "regression-base"), asRun(run, "same", "regression-same"), asRun(run, "slow", "regression-slow")
	t.Logf("CPU per request measured alone: %v; slowdown: +%d µs of CPU per request (EXTRA_CPU_MICROS)", cost, extra)
	t.Logf("p50 µs: base %v, same %v, slow %v", p50s(base), p50s(same), p50s(slow))
	t.Logf("CPU µs per request: base %v, same %v, slow %v", cpus(base), cpus(same), cpus(slow))

	// Each pair as results folders, compared by the CLI as a user would.
	dir := t.TempDir()
	write := func(r *benchv1.BenchmarkRun) string {
		d := filepath.Join(dir, r.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteOutputs(d, r); err != nil {
			t.Fatal(err)
		}
		return d
	}
	baseDir, sameDir, slowDir := write(base), write(same), write(slow)
	const minEffect = 100_000 // 10%
	verdictRow := regexp.MustCompile(`(?m)^go\s+primes\s+200/s\s+\S+.*\s(\w+)$`)
	judge := func(metric, baseline, dir string) (benchv1.RegressionVerdict, string, int) {
		cmd := exec.Command(gauntlet, "compare", "--metric", metric, "--min-effect", "0.1", "--fail-on-regression", baseline, dir)
		out, _ := cmd.CombinedOutput()
		t.Logf("gauntlet compare --metric %s %s %s:\n%s", metric, filepath.Base(baseline), filepath.Base(dir), out)
		m := verdictRow.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("no verdict row in:\n%s", out)
		}
		return benchv1.RegressionVerdict(m[1]), string(out), cmd.ProcessState.ExitCode()
	}
	// Both metrics move with the machine's other work, even interleaved (here 10-25% between
	// repetitions under load; CPU time per request too: a busy sibling core slows the
	// caches): the unchanged pair must never be judged a change, either way round, and
	// NoChange when its repetitions are steady (within ±10% of their median). The unchanged
	// pair is also the run's own gauge of the noise: where it resolves to NoChange both ways,
	// the run could tell 10% apart and the slowdown must be Slower; where it is Inconclusive
	// (a host stealing a quarter of the CPU for a minute doubled some p50s), Inconclusive is
	// the honest answer for the slowdown too, and only a wrong one (NoChange, Faster) fails.
	// The slowdown must be Slower on at least one metric whatever the noise.
	detected, slowVerdict := 0, map[string]benchv1.RegressionVerdict{}
	for _, m := range []struct {
		metric     string
		base, same []int64
	}{{compare.MetricCPU, cpus(base), cpus(same)}, {"p50", p50s(base), p50s(same)}} {
		steady := steadyWithin(m.base, 0.10) && steadyWithin(m.same, 0.10)
		resolves := true
		for _, pair := range [][2]string{{baseDir, sameDir}, {sameDir, baseDir}} {
			v, out, code := judge(m.metric, pair[0], pair[1])
			resolves = resolves && v == benchv1.VerdictNoChange
			switch {
			case v == benchv1.VerdictInconclusive && (code != 7 || !strings.Contains(out, "Regressed=Unknown")):
				t.Errorf("%s, the same target measured twice: Inconclusive, exit %d; want Regressed=Unknown, exit 7", m.metric, code)
			case v == benchv1.VerdictNoChange && (code != 0 || !strings.Contains(out, "Regressed=False")):
				t.Errorf("%s, the same target measured twice: %s, exit %d; want Regressed=False, exit 0", m.metric, v, code)
			case v != benchv1.VerdictNoChange && v != benchv1.VerdictInconclusive:
				t.Errorf("%s, the same target measured twice: %s, a false change", m.metric, v)
			case v != benchv1.VerdictNoChange && steady:
				t.Errorf("%s, the same target measured twice, steady repetitions: %s, want NoChange", m.metric, v)
			}
		}
		v, out, code := judge(m.metric, baseDir, slowDir)
		slowVerdict[m.metric] = v
		switch {
		case v == benchv1.VerdictSlower && (code != 3 || !strings.Contains(out, "Regressed=True")):
			t.Errorf("%s, 20%% more CPU work per request: Slower, exit %d; want Regressed=True, exit status 3", m.metric, code)
		case v == benchv1.VerdictSlower:
			detected++
		case resolves || v != benchv1.VerdictInconclusive:
			t.Errorf("%s, 20%% more CPU work per request: %s, exit %d; want Slower, Regressed=True, exit status 3 (the unchanged pair resolved: %v)", m.metric, v, code, resolves)
		default:
			t.Logf("%s: the unchanged pair was Inconclusive (this run's noise hides 10%%), and so was the slowdown", m.metric)
		}
	}
	if detected == 0 {
		t.Errorf("20%% more CPU work per request was judged Slower on neither metric")
	}
	// The CLI's verdict is compare's, from the same repetitions (the default metric, p50).
	o, _ := compare.OptionsFrom(&benchv1.Baseline{MinEffect: "0.1"})
	compare.Apply(slow, base, baseDir, o)
	switch v := slow.Status.Results[0].Baseline; {
	case v == nil || v.Metric != o.Metric || v.Verdict != slowVerdict[o.Metric]:
		t.Errorf("the slowdown's comparison: %+v; want the CLI's %s verdict, %s", v, o.Metric, slowVerdict[o.Metric])
	case v.Verdict == benchv1.VerdictSlower && v.ShiftPPM < minEffect:
		t.Errorf("the slowdown's comparison: Slower by %d ppm, under the minimum effect", v.ShiftPPM)
	}

	// False positives: 20 pairs of disjoint ten-repetition samples drawn from the twenty
	// real repetitions of the two unchanged targets, for both metrics; any Slower or Faster
	// among them is false.
	for _, m := range []struct {
		name string
		pool []int64
	}{{compare.MetricCPU, append(cpus(base), cpus(same)...)}, {"p50", append(p50s(base), p50s(same)...)}} {
		rng := rand.New(rand.NewPCG(11, 11))
		counts := map[benchv1.RegressionVerdict]int{}
		for i := 0; i < 20; i++ {
			perm := rng.Perm(len(m.pool))
			var a, b []int64
			for j, k := range perm {
				if j < len(m.pool)/2 {
					a = append(a, m.pool[k])
				} else {
					b = append(b, m.pool[k])
				}
			}
			counts[compare.Judge(a, b, minEffect).Verdict]++
		}
		falsePositives := counts[benchv1.VerdictSlower] + counts[benchv1.VerdictFaster]
		t.Logf("%s: false-positive rate over 20 NoChange-vs-NoChange pairs drawn from %d real repetitions: %d/20 (%d NoChange, %d Inconclusive)",
			m.name, len(m.pool), falsePositives, counts[benchv1.VerdictNoChange], counts[benchv1.VerdictInconclusive])
		if falsePositives > 3 {
			t.Errorf("%s: %d of 20 unchanged pairs were judged Slower or Faster", m.name, falsePositives)
		}
	}
}

// cpus are a run's repetitions of CPU time per request, in µs.
func cpus(run *benchv1.BenchmarkRun) []int64 {
	var out []int64
	for _, tr := range run.Status.Trials {
		if tr.Phase == benchv1.TrialSucceeded && tr.Result != nil && tr.Result.AchievedMilliRPS > 0 {
			out = append(out, tr.Result.CPUMillicores*1_000_000/tr.Result.AchievedMilliRPS)
		}
	}
	return out
}

// steadyWithin says whether every value lies within frac of the median.
func steadyWithin(v []int64, frac float64) bool {
	s := append([]int64(nil), v...)
	slices.Sort(s)
	m := float64(s[(len(s)-1)/2])
	return float64(s[0]) >= m*(1-frac) && float64(s[len(s)-1]) <= m*(1+frac)
}

// serverPID is the pid of the go-nethttp server this test started (its only child).
func serverPID(t *testing.T) int {
	t.Helper()
	for pid, p := range supervise.Procs() {
		if p.Live() && p.PPID == os.Getpid() {
			return pid
		}
	}
	t.Fatal("no server process")
	return 0
}

// procCPU is a process's CPU time (user and system, /proc/PID/stat).
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	p, ok := supervise.Procs()[pid]
	if !ok {
		t.Fatalf("process %d is gone", pid)
	}
	return time.Duration(p.Ticks) * (time.Second / 100) // USER_HZ
}
