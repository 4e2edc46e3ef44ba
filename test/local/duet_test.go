package local_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A duet through the CLI, real k6 and two real targets: in every round both arms are
// loaded at once (their measured windows overlap, one k6 loading both, each arm at the whole
// rate, each trial naming the other), with the wire captured for each, and the pair is
// judged as an interleaved one is: a candidate burning 3 ms more CPU per request is Slower,
// and the exit status says so.
func TestDuetLoadsBothArmsAtOnce(t *testing.T) {
	testenv.Long(t)
	spec := fmt.Sprintf(`
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: duet}
spec:
  targets:
  - {name: v1, preset: go-nethttp, workers: 1}
  - {name: v2, preset: go-nethttp, workers: 1, baselineTarget: v1, env: [{name: EXTRA_CPU_MICROS, value: "3000"}]}
  scenarios: [{name: primes, requests: [{path: %q}]}]
  load: {rates: [50], maxVUs: 50, warmup: 1s, duration: 2s, repetitions: 4, pairing: Duet}
  baseline: {minEffect: "0.2"}
`, primesPath)
	c := start(t, spec, nil)
	code := c.wait(t, 4*time.Minute)
	run := c.status(t)
	rounds := map[int32][]benchv1.Trial{}
	for _, tr := range run.Status.Trials {
		if !tr.Calibration {
			rounds[tr.Repetition] = append(rounds[tr.Repetition], tr)
		}
	}
	if len(rounds) != 4 {
		t.Fatalf("%d rounds: %+v", len(rounds), run.Status.Trials)
	}
	for rep, arms := range rounds {
		if len(arms) != 2 {
			t.Fatalf("round %d: %d trials", rep, len(arms))
		}
		a, b := arms[0], arms[1]
		if a.Phase != benchv1.TrialSucceeded || b.Phase != benchv1.TrialSucceeded || a.MeasureStart == nil || b.MeasureStart == nil {
			t.Fatalf("round %d: %s %s (%s), %s %s (%s)", rep, a.Name, a.Phase, a.Message, b.Name, b.Phase, b.Message)
		}
		// Both windows (2 s each) overlap, to the second the status keeps.
		if a.MeasureStart.After(b.MeasureEnd.Time) || b.MeasureStart.After(a.MeasureEnd.Time) ||
			!strings.HasPrefix(a.Message, "duet: loaded at the same time as "+b.Name) || // first: messages are clipped
			!strings.Contains(b.Message, a.Name) {
			t.Errorf("round %d was not a duet: %s [%s, %s] %q; %s [%s, %s] %q", rep, a.Name, a.MeasureStart, a.MeasureEnd, a.Message,
				b.Name, b.MeasureStart, b.MeasureEnd, b.Message)
		}
		if a.Result == nil || a.Result.Wire == nil || b.Result == nil || b.Result.Wire == nil {
			t.Fatalf("round %d: an arm without its wire capture", rep)
		}
		// One k6 for both (the same generator figures), each arm at the whole 50/s for 2 s.
		if a.Result.GeneratorCPUMillicores != b.Result.GeneratorCPUMillicores ||
			a.Result.Requests < 97 || a.Result.Requests > 103 || b.Result.Requests < 97 || b.Result.Requests > 103 {
			t.Errorf("round %d: generator %dm and %dm, requests %d and %d; want one k6, about 100 each", rep,
				a.Result.GeneratorCPUMillicores, b.Result.GeneratorCPUMillicores, a.Result.Requests, b.Result.Requests)
		}
	}
	var v2 *benchv1.Comparison
	for _, r := range run.Status.Results {
		if r.Target == "v2" {
			v2 = r.Baseline
		}
	}
	if v2 == nil || v2.Verdict != benchv1.VerdictSlower || code != 3 {
		t.Fatalf("v2 against v1 in a duet: %+v, exit status %d (want Slower, 3)\n%s", v2, code, c.stderr.String())
	}
	// Each arm on CPUs of its own where the target side has two or more; on fewer (this
	// 2-core machine: one a side) the arms share it, and the placement says so.
	pl := run.Status.Placement
	switch {
	case pl == nil:
		t.Fatalf("no status.placement")
	case len(pl.Arms) == 2:
		if pl.Arms[0].Target != "v1" || pl.Arms[1].Target != "v2" || pl.Arms[0].CPUs == pl.Arms[1].CPUs {
			t.Errorf("placement.arms %+v", pl.Arms)
		}
	case pl.Shared || strings.Contains(pl.Message, "1 pair(s) with more arms than the target side's CPUs"):
	default:
		t.Errorf("placement: neither arms of their own nor said to share: %+v", pl)
	}
	t.Logf("%s; placement: %s", run.Status.Verdict, pl.Message)
}

// An arm's target killed mid-trial fails that arm's trial; the other arm of the round is
// still measured from the duet's one k6, and the next round's load starts only after that
// k6 has exited (its window does not overlap the killed round's).
func TestDuetArmCrashFailsOnlyItsTrial(t *testing.T) {
	testenv.Long(t)
	c := start(t, fmt.Sprintf(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: duetcrash}
spec:
  targets:
  - {name: v1, preset: go-nethttp, workers: 1}
  - {name: v2, preset: go-nethttp, workers: 1, baselineTarget: v1}
  scenarios: [{name: primes, requests: [{path: %q}]}]
  load: {rates: [50], maxVUs: 50, warmup: 1s, duration: 3s, repetitions: 4, pairing: Duet}
`, primesPath), nil)
	c.waitFor(t, "primes @ 50/s  rep 1", 90*time.Second) // the first round, after the generator floor (4 rounds: a comparison needs them)
	time.Sleep(2 * time.Second)                          // into its measured window
	server := descendant(c.cmd.Process.Pid, ".build/server")
	if server == 0 {
		t.Fatal("no go-nethttp server among the CLI's descendants")
	}
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 2*time.Minute)
	var failed, survived []benchv1.Trial
	for _, tr := range c.status(t).Status.Trials {
		switch {
		case tr.Calibration || tr.Repetition != 1:
		case tr.Phase == benchv1.TrialFailed:
			failed = append(failed, tr)
		case tr.Phase == benchv1.TrialSucceeded:
			survived = append(survived, tr)
		}
	}
	if len(failed) != 1 || len(survived) != 1 || !strings.Contains(failed[0].Message, "exited during the trial") {
		t.Fatalf("round 1: failed %+v, succeeded %+v; want one of each, the killed arm's trial failed", failed, survived)
	}
	if r := survived[0].Result; r == nil || r.Requests < 145 || r.Requests > 155 {
		t.Errorf("the other arm, %s: %+v; want its whole 50/s for 3 s", survived[0].Name, r)
	}
	for _, tr := range c.status(t).Status.Trials {
		if tr.Repetition == 2 && tr.MeasureStart != nil && survived[0].MeasureEnd != nil && tr.MeasureStart.Before(survived[0].MeasureEnd) {
			t.Errorf("round 2's %s started its window at %s, before round 1's load ended at %s", tr.Name, tr.MeasureStart, survived[0].MeasureEnd)
		}
	}
}
