package search

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

type key struct{ target, scenario string }

// history is one search's trials in step order.
type history struct {
	key
	trials []benchv1.Trial
}

// histories gathers every search's trials, in the order the spec lists targets within
// scenarios (plan.Build's first steps).
func histories(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial) []history {
	var out []history
	idx := map[key]int{}
	for _, s := range spec.Scenarios {
		for _, t := range spec.Targets {
			idx[key{t.Name, s.Name}] = len(out)
			out = append(out, history{key: key{t.Name, s.Name}})
		}
	}
	for _, t := range trials {
		if t.SearchStep == 0 {
			continue
		}
		if i, ok := idx[key{t.Target, t.Scenario}]; ok {
			out[i].trials = append(out[i].trials, t)
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].trials, func(a, b benchv1.Trial) int { return int(a.SearchStep - b.SearchStep) })
	}
	return out
}

// replay runs one search's finished trials through its machine. It returns the machine,
// the steps as the status shows them, whether a trial is still to run, and why the search
// cannot run at all ("" normally).
func replay(spec *benchv1.BenchmarkRunSpec, h history) (*machine, []benchv1.SearchStep, bool, string) {
	m := newMachine(configOf(spec))
	var steps []benchv1.SearchStep
	open := false
	for _, t := range h.trials {
		st := benchv1.SearchStep{Trial: t.Name, Kind: m.kind(), RPS: t.LoadPoint, Outcome: benchv1.StepPending}
		switch t.Phase {
		case benchv1.TrialSkipped:
			return m, steps, false, t.Message
		case benchv1.TrialPending, benchv1.TrialRunning:
			open = true
		default:
			j := judge(spec, t)
			st.Outcome, st.Reason, st.P99Micros, st.AchievedMilliRPS = j.outcome, j.reason, j.p99, j.achievedMil
			if !open { // a finished trial after an open one waits for it (order is history)
				m.observe(j)
			}
		}
		steps = append(steps, st)
	}
	return m, steps, open, ""
}

// Advance appends the next trials of every search that has none left to run, and returns
// how many it appended. Both modes call it whenever a trial has finished.
func Advance(spec *benchv1.BenchmarkRunSpec, st *benchv1.BenchmarkRunStatus) int {
	if spec.Load.Search == nil {
		return 0
	}
	added := 0
	for _, h := range histories(spec, st.Trials) {
		if len(h.trials) == 0 {
			continue // plan.Build makes every first step; none means the search was not planned
		}
		m, _, open, skipped := replay(spec, h)
		if open || skipped != "" {
			continue
		}
		rate, n, short := m.next()
		step := h.trials[len(h.trials)-1].SearchStep
		for rep := int32(1); rep <= n; rep++ {
			step++
			t := plan.Trial{Index: int32(len(st.Trials)), Target: h.target, Scenario: h.scenario, LoadPoint: rate,
				Repetition: 1, SearchStep: step, Short: short, Name: plan.SearchTrialName(h.target, h.scenario, step)}
			if m.confirming {
				t.Repetition = m.confirmN + rep
			}
			st.Trials = append(st.Trials, t.Status())
			added++
		}
	}
	return added
}

// Status is status.search: every search's steps and answer, from the trials.
func Status(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial) []benchv1.CapacitySearch {
	if spec.Load.Search == nil {
		return nil
	}
	var out []benchv1.CapacitySearch
	for _, h := range histories(spec, trials) {
		if len(h.trials) == 0 {
			continue
		}
		m, steps, _, skipped := replay(spec, h)
		cs := benchv1.CapacitySearch{Target: h.target, Scenario: h.scenario, Phase: m.phase(), Steps: steps,
			CapacityRPS: m.lower, UpperRPS: m.upper}
		if skipped != "" {
			cs.Phase, cs.Message = benchv1.SearchFailed, "not run: "+skipped
			out = append(out, cs)
			continue
		}
		answer(spec, m, &cs)
		out = append(out, cs)
	}
	return out
}

// answer fills what the machine concluded: bound, confidence, cost and the message.
func answer(spec *benchv1.BenchmarkRunSpec, m *machine, cs *benchv1.CapacitySearch) {
	switch {
	case m.failed != "":
		cs.Message = m.failed
		return
	case !m.done:
		return
	}
	if m.generatorBound {
		cs.CapacityRPS, cs.Bound, cs.Confidence = m.bestPass, benchv1.BoundLower, benchv1.ConfidenceLow
		cs.CostMicroUSDPerMillion = results.Cost(spec, cs.Target, int64(cs.CapacityRPS)*1000)
		cs.Message = fmt.Sprintf("at least %d/s (the highest rate a trial passed, not confirmed at full length): every failure was the load generator's, never the target's; %s",
			cs.CapacityRPS, m.upperReason)
		return
	}
	if m.unconfirmed {
		cs.CapacityRPS, cs.Bound, cs.Confidence = m.bestLongPassBelow(), benchv1.BoundCapacity, benchv1.ConfidenceLow
		if m.upperByGenerator {
			cs.Bound = benchv1.BoundLower
		}
		cs.CostMicroUSDPerMillion = results.Cost(spec, cs.Target, int64(cs.CapacityRPS)*1000)
		cs.Message = fmt.Sprintf("%d/s, the highest rate a full-length trial passed, not confirmed by repetitions: %s", cs.CapacityRPS, m.upperReason)
		return
	}
	f := m.full[m.confirmRate]
	cs.CapacityRPS, cs.Repetitions, cs.PassedRepetitions = m.confirmRate, f[1], f[0]
	cs.CostMicroUSDPerMillion = results.Cost(spec, cs.Target, int64(cs.CapacityRPS)*1000)
	cs.Bound = benchv1.BoundCapacity
	if m.upper == 0 || m.upperByGenerator {
		cs.Bound = benchv1.BoundLower
	}
	switch {
	case !m.widthReached:
		cs.Confidence = benchv1.ConfidenceLow
	case f[0] == f[1] && m.noisy == 0 && m.rounds == 0:
		cs.Confidence = benchv1.ConfidenceHigh
	default:
		cs.Confidence = benchv1.ConfidenceMedium
	}
	reps := fmt.Sprintf("%d of %d full-length trials passed", f[0], f[1])
	switch {
	case m.upper == 0:
		cs.Message = fmt.Sprintf("at least %d/s: it held maxRate (or every step the budget allowed); %s", cs.CapacityRPS, reps)
	case m.upperByGenerator:
		cs.Message = fmt.Sprintf("at least %d/s: the load generator saturated at %d/s (%s), not the target; %s", cs.CapacityRPS, m.upper, m.upperReason, reps)
	default:
		cs.Message = fmt.Sprintf("%d/s; %d/s failed (%s); %s", cs.CapacityRPS, m.upper, m.upperReason, reps)
	}
	if !m.widthReached {
		cs.Message += fmt.Sprintf("; the steps ran out before the width (%s) was reached", units.FormatPPM(m.c.widthPPM))
	}
	if m.rounds > 0 {
		cs.Message += fmt.Sprintf("; full-length repetitions overturned a rate the short trials passed (%d time(s)): later steps were full-length", m.rounds)
	}
	if m.noisy > 0 {
		cs.Message += fmt.Sprintf("; %d rate(s) gave contradictory trials and were decided by majority", m.noisy)
	}
}

// Summary is status.capacity: each search's answer, ">=" marking a lower bound.
func Summary(searches []benchv1.CapacitySearch) string {
	var parts []string
	for _, s := range searches {
		v := "searching"
		switch {
		case s.Phase == benchv1.SearchFailed:
			v = "none"
		case s.Phase == benchv1.SearchDone && s.Bound == benchv1.BoundLower:
			v = fmt.Sprintf(">=%d/s", s.CapacityRPS)
		case s.Phase == benchv1.SearchDone:
			v = fmt.Sprintf("%d/s", s.CapacityRPS)
		}
		parts = append(parts, s.Target+"/"+s.Scenario+" "+v)
	}
	return strings.Join(parts, ", ")
}

// CountsForSLO says whether a result row takes part in the SLO verdict of the run: a fixed
// load point, or a search's answer. A search's full-length trials at a rate it then gave up
// are measurements on the way, expected to miss.
func CountsForSLO(spec *benchv1.BenchmarkRunSpec, searches []benchv1.CapacitySearch, r benchv1.ResultRow) bool {
	if slices.Contains(plan.LoadPoints(spec.Load), r.LoadPoint) {
		return true
	}
	for _, s := range searches {
		if s.Target == r.Target && s.Scenario == r.Scenario {
			return s.Phase == benchv1.SearchDone && s.CapacityRPS == r.LoadPoint
		}
	}
	return true
}
