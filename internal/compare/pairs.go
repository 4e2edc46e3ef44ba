package compare

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// baselineTargets maps each candidate target to its baseline target in the same run.
func baselineTargets(run *benchv1.BenchmarkRun) map[string]string {
	out := map[string]string{}
	for _, t := range run.Spec.Targets {
		if t.BaselineTarget != "" {
			out[t.Name] = t.BaselineTarget
		}
	}
	return out
}

// HasPairs says whether some target of run is judged against another target of the run.
func HasPairs(run *benchv1.BenchmarkRun) bool { return len(baselineTargets(run)) > 0 }

// Pairs judges every row of a target with a baselineTarget against that target's row of the
// same scenario and load point in this run: both were measured in the same rounds, in a
// random order within each, on the same machines, so drift between nights or nodes is not
// in the shift, and each round's ratio is judged (JudgePaired), so neither is the drift
// between rounds. It sets those rows' Baseline and returns the pairs judged, "v2 vs v1", for
// status.baseline.pairs ("" when the run has none).
func Pairs(run *benchv1.BenchmarkRun, o Options) string {
	paired := baselineTargets(run)
	if len(paired) == 0 {
		return ""
	}
	_, groups := results.Group(run.Status.Trials)
	points := plan.LoadPoints(run.Spec.Load)
	var names []string
	for _, t := range run.Spec.Targets {
		if b := paired[t.Name]; b != "" {
			names = append(names, t.Name+" vs "+b)
		}
	}
	for i := range run.Status.Results {
		r := &run.Status.Results[i]
		b := paired[r.Target]
		if b == "" {
			continue
		}
		k := results.RowKey{Target: r.Target, Scenario: r.Scenario, Point: r.LoadPoint}
		kb := results.RowKey{Target: b, Scenario: r.Scenario, Point: r.LoadPoint}
		baseRow := find(run.Status.Results, kb)
		if baseRow == nil && !slices.Contains(points, r.LoadPoint) {
			continue // a capacity search's rate the baseline target never ran
		}
		prev, cur, baseOut, curOut := rounds(&run.Spec, groups[kb], groups[k])
		var c benchv1.Comparison
		if baseRow == nil {
			c = benchv1.Comparison{Verdict: benchv1.VerdictInconclusive, Metric: o.Metric,
				Message: fmt.Sprintf("%s has no measured row for %s at %d", b, r.Scenario, r.LoadPoint)}
		} else {
			c = judgeRow(r, baseRow, cur, prev, o, JudgePaired)
		}
		if left := leftOut("this target", curOut) + leftOut(b, baseOut); left != "" && c.Verdict != benchv1.VerdictInconclusive {
			c.Message = strings.TrimPrefix(left, "; ")
		}
		c.BaselineTarget = b
		r.Baseline = &c
	}
	return strings.Join(names, ", ")
}

// rounds are the repetitions both arms measured validly, matched by round (a repetition
// flagged on its own drops its round from both sides; so does one the hypervisor took, as
// far as spareStolenRounds allows), with why the others were left out.
func rounds(spec *benchv1.BenchmarkRunSpec, baseTrials, curTrials []benchv1.Trial) (base, cur []benchv1.Measurement, baseOut, curOut map[string]int) {
	byRound := func(trials []benchv1.Trial) (map[int32]benchv1.Measurement, map[string]int) {
		ok, out := map[int32]benchv1.Measurement{}, map[string]int{}
		for _, t := range trials {
			if m, good := trusted(spec, t, out); good {
				ok[t.Repetition] = m
			}
		}
		return ok, out
	}
	b, baseOut := byRound(baseTrials)
	c, curOut := byRound(curTrials)
	var reps []int32
	for rep := range b {
		if _, both := c[rep]; both {
			reps = append(reps, rep)
		}
	}
	slices.Sort(reps)
	for _, rep := range reps {
		base, cur = append(base, b[rep]), append(cur, c[rep])
	}
	base, cur = spareStolenRounds(base, cur, baseOut, curOut)
	return base, cur, baseOut, curOut
}
