package compare

import (
	"math/rand/v2"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// Rounds whose level drifts by ±20% while the candidate is 5% slower within each: the
// unpaired test sees the drift as noise, the paired one sees the 5%.
func TestPairedSeesThroughDrift(t *testing.T) {
	level := []float64{140, 131, 161, 141, 132, 101}
	var base, cur []int64
	for i, l := range level {
		jitter := 1 + 0.005*float64(i%3-1)
		base, cur = append(base, int64(l*10)), append(cur, int64(l*10*1.05*jitter))
	}
	if c := Judge(base, cur, 20_000); c.Verdict != benchv1.VerdictInconclusive {
		t.Fatalf("unpaired: %s, want Inconclusive (the drift hides 5%%)", c.Verdict)
	}
	c := JudgePaired(base, cur, 20_000)
	if c.Verdict != benchv1.VerdictSlower || c.Test != TestPairedT || c.ShiftPPM < 45_000 || c.ShiftPPM > 55_000 || *c.ShiftLowPPM > c.ShiftPPM || *c.ShiftHighPPM < c.ShiftPPM {
		t.Fatalf("paired: %+v", c)
	}
	// The same rounds, no change: never Slower or Faster, NoChange when it is shown.
	if c := JudgePaired(base, base, 20_000); c.Verdict != benchv1.VerdictNoChange || c.ShiftPPM != 0 {
		t.Fatalf("A/A, identical rounds: %+v", c)
	}
}

// Unchanged pairs under round-to-round drift and within-round noise: at most about Alpha of
// them Slower or Faster (here over 400 seeded runs of 6 rounds, within-round noise 2%).
func TestPairedFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	changes := 0
	for run := 0; run < 400; run++ {
		var base, cur []int64
		for i := 0; i < 6; i++ {
			l := 1000 * (1 + 0.15*rng.NormFloat64())
			base = append(base, int64(l*(1+0.02*rng.NormFloat64())))
			cur = append(cur, int64(l*(1+0.02*rng.NormFloat64())))
		}
		if v := JudgePaired(base, cur, 20_000).Verdict; v == benchv1.VerdictSlower || v == benchv1.VerdictFaster {
			changes++
		}
	}
	if changes > 400*Alpha*1.5 {
		t.Fatalf("%d of 400 unchanged pairs judged a change", changes)
	}
}

func TestPairedNeedsRounds(t *testing.T) {
	if c := JudgePaired([]int64{1, 2, 3}, []int64{2, 3, 4}, 50_000); c.Verdict != benchv1.VerdictInconclusive || c.MinDetectablePPM != nil {
		t.Fatalf("3 rounds: %+v", c)
	}
	if c := JudgePaired([]int64{1, 2, 3, 4}, []int64{2, 3, 4}, 50_000); c.Verdict != benchv1.VerdictInconclusive {
		t.Fatalf("unmatched rounds: %+v", c)
	}
	// Every round exactly 10% slower: zero variance, an exact shift.
	if c := JudgePaired([]int64{100, 200, 300, 400}, []int64{110, 220, 330, 440}, 50_000); c.Verdict != benchv1.VerdictSlower || c.ShiftPPM != 100_000 {
		t.Fatalf("exact 10%%: %+v", c)
	}
}

// A repetition flagged on its own drops its round from both arms of a pair.
func TestRoundsMatchByRepetition(t *testing.T) {
	run := runWith("ab", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {110, 111, 112, 113, 114}}, false)
	run.Status.Trials[1].Result.DroppedIterations = 9 // go's round 2
	groups := byTarget(run)
	base, cur, baseOut, _ := rounds(&run.Spec, groups["go"], groups["node"])
	if len(base) != 4 || len(cur) != 4 || base[1].P50Micros != 102 || cur[1].P50Micros != 112 || baseOut["DroppedIterations"] != 1 {
		t.Fatalf("rounds: %d/%d, second %d/%d, left out %v", len(base), len(cur), base[1].P50Micros, cur[1].P50Micros, baseOut)
	}
}

// A round the hypervisor took is left out of both arms of a pair and said; at the
// threshold it stays.
func TestRoundsLeaveOutHostSteal(t *testing.T) {
	run := runWith("ab", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {100, 101, 204, 103, 104}}, false)
	var hit *benchv1.Measurement
	for i, tr := range run.Status.Trials {
		if tr.Target == "node" && tr.Repetition == 3 {
			hit = run.Status.Trials[i].Result
		}
	}
	// 10.0% of 2 CPUs' time: not over the threshold.
	hit.HostStealMillicores, hit.HostCPUs = 200, 2
	groups := byTarget(run)
	if base, _, _, curOut := rounds(&run.Spec, groups["go"], groups["node"]); len(base) != 5 || len(curOut) != 0 {
		t.Fatalf("at the threshold: %d rounds, left out %v", len(base), curOut)
	}
	hit.HostStealMillicores = 300 // 15%
	groups = byTarget(run)
	base, cur, _, curOut := rounds(&run.Spec, groups["go"], groups["node"])
	if len(base) != 4 || len(cur) != 4 || cur[2].P50Micros != 103 || curOut[results.LeftOutHostSteal] != 1 {
		t.Fatalf("rounds: %d/%d, third %d, left out %v", len(base), len(cur), cur[2].P50Micros, curOut)
	}
	if got := leftOut("node", curOut); got != "; node: repetitions left out (HostSteal 1)" {
		t.Fatalf("leftOut = %q", got)
	}
}

// byTarget is the run's trials by target (one scenario and point in these tests).
func byTarget(run *benchv1.BenchmarkRun) map[string][]benchv1.Trial {
	out := map[string][]benchv1.Trial{}
	for _, t := range run.Status.Trials {
		out[t.Target] = append(out[t.Target], t)
	}
	return out
}
