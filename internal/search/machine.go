package search

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// machine is one search's state, rebuilt by observing its finished trials in step order.
// Rates are decided Pass or Fail; lower is the highest decided Pass, upper the lowest
// decided Fail (0: none yet).
type machine struct {
	c                config
	lower, upper     int32
	upperByGenerator bool    // upper failed because the load generator saturated
	upperReason      string  // why upper failed
	passed           []int32 // every rate decided Pass (since the last overturn)
	bestPass         int32   // the highest rate any trial passed, short or long
	longPasses       []int32 // the rates full-length trials passed
	// full counts every full-length trial by rate, passed and all: a rate's repetitions are
	// judged together with the full-length steps taken at it before (MLRsearch counts every
	// trial at a load).
	full map[int32][2]int32
	// onlyGenerator: every failure so far was the load generator's (GeneratorLimited)
	onlyGenerator bool
	// generatorBound is set when the search ends on the generator alone: no answer was
	// confirmed, but nothing ever showed the target at its limit (see giveUp).
	generatorBound bool
	// unconfirmed is set when the search ends with a rate a full-length step passed but no
	// repetitions confirmed (see giveUp).
	unconfirmed   bool
	rate          int32 // the rate the steps are measuring
	passes, fails int   // trials at rate so far
	noisy         int   // rates that had both passing and failing trials
	steps         int32 // steps used (short trials, or full-length ones once long)
	// estimate is the throughput a failing step achieved when it fell short of the offered
	// rate: in an open model, what an overloaded server serves is about its capacity, so
	// it is the next rate tried (then a width above it), before plain bisection.
	estimate int32
	// probeAbove: the last pass was at an estimate (or a probe, or a long step down): the
	// capacity is likely close above, so the next rate is a width higher, not the midpoint.
	probeAbove bool
	downs      int // full-length steps down from upper with nothing passed: each goes twice as far
	// long: full-length repetitions overturned a rate the short trials passed, so the rest
	// of the search uses full-length steps (MLRsearch lengthens trials as it narrows).
	long bool

	confirming          bool
	confirmRate         int32
	confirmN, confirmOK int32
	confirmGen          bool
	confirmAchieved     int32 // the least a failing full-length repetition achieved, when short of the rate
	rounds              int
	widthReached        bool
	done                bool
	failed              string
}

func newMachine(c config) *machine {
	return &machine{c: c, rate: c.start, onlyGenerator: true, full: map[int32][2]int32{}}
}

// kind is what the next trial of the machine is for, in its current state.
func (m *machine) kind() benchv1.StepKind {
	switch {
	case m.confirming:
		return benchv1.StepConfirm
	case m.upper == 0 || m.lower == 0:
		return benchv1.StepBracket
	}
	return benchv1.StepBisect
}

// observe takes one finished trial of the search, in step order.
func (m *machine) observe(j judged) {
	if m.done || m.failed != "" {
		return
	}
	if m.confirming {
		m.observeConfirm(j)
		return
	}
	m.steps++
	m.note(j)
	switch j.outcome {
	case benchv1.StepGeneratorLimited:
		m.decide(false, true, j.reason, 0) // no retry: the generator will not do better
		return
	case benchv1.StepPass:
		m.passes++
	default:
		m.fails++
	}
	half := int(m.c.attempts) / 2
	switch {
	case m.passes > 0 && m.fails == 0, m.passes > half:
		// A pass is trusted at once: noise makes trials worse, and an overloaded target's
		// queue does not shrink by luck. After a failure, the majority decides.
		m.decide(true, false, "", 0)
	case m.fails > half:
		m.decide(false, false, j.reason, j.achievedMil)
	case m.steps >= m.c.maxSteps:
		// Out of steps with the rate undecided: it is not shown to pass, so it fails.
		m.decide(false, false, j.reason+" (undecided when the steps ran out)", 0)
	default:
		m.upperReason = j.reason // measured again at the same rate
	}
}

// note keeps what every trial tells, whatever the decision: the best pass, and whether any
// failure was the target's.
func (m *machine) note(j judged) {
	rate := m.rate
	if m.confirming {
		rate = m.confirmRate
	}
	if m.confirming || m.long {
		f := m.full[rate]
		f[1]++
		if j.outcome == benchv1.StepPass {
			f[0]++
		}
		m.full[rate] = f
	}
	switch j.outcome {
	case benchv1.StepPass:
		m.bestPass = max(m.bestPass, rate)
		if m.confirming || m.long {
			m.longPasses = append(m.longPasses, rate)
		}
	case benchv1.StepFail:
		m.onlyGenerator = false
	}
}

// giveUp ends the search without a confirmed answer. When every failure was the load
// generator's and some rate passed, the target was never shown at its limit: the search
// ends with that rate as a lower bound. Otherwise, a rate below the failures that passed a
// full-length trial is the answer, unconfirmed by repetitions. Both with low confidence.
func (m *machine) giveUp(why string) {
	switch {
	case m.onlyGenerator && m.bestPass > 0:
		m.done, m.generatorBound = true, true
	case m.bestLongPassBelow() > 0:
		m.done, m.unconfirmed = true, true
	default:
		m.failed = why
		return
	}
	m.upperReason = why
}

// bestLongPassBelow is the highest rate a full-length trial passed below upper (the lowest
// failure), 0 when none.
func (m *machine) bestLongPassBelow() int32 {
	best := int32(0)
	for _, r := range m.longPasses {
		if m.upper == 0 || r < m.upper {
			best = max(best, r)
		}
	}
	return best
}

// decide records a decided rate and moves to the next one; achievedMil is what a failing
// step achieved (milli req/s), 0 when unknown.
func (m *machine) decide(pass, byGenerator bool, reason string, achievedMil int64) {
	if m.passes > 0 && m.fails > 0 {
		m.noisy++
	}
	m.passes, m.fails = 0, 0
	m.probeAbove = pass && (m.rate == m.estimate || m.probeAbove || (m.long && m.lower == 0))
	m.estimate = 0
	if pass {
		m.lower = max(m.lower, m.rate)
		m.passed = append(m.passed, m.rate)
	} else if m.upper == 0 || m.rate < m.upper {
		m.upper, m.upperByGenerator, m.upperReason = m.rate, byGenerator, reason
		if a := int32(achievedMil / 1000); int64(a)*100 < int64(m.rate)*99 {
			m.estimate = a
		}
	}
	m.advance()
}

// advance chooses what comes after a decided rate: a higher or lower rate, the midpoint,
// or the full-length repetitions at the highest passing rate.
func (m *machine) advance() {
	switch {
	case m.upper == 0 && m.lower >= m.c.maxRate:
		m.widthReached = true
		m.confirm()
	case m.upper == 0 && m.steps >= m.c.maxSteps:
		m.confirm() // out of steps while everything passed: a lower bound
	case m.upper == 0:
		m.rate = min(m.lower*growth, m.c.maxRate)
	case m.lower == 0 && m.upper <= 1:
		m.giveUp(fmt.Sprintf("even 1 req/s failed (%s)", m.upperReason))
	case m.lower == 0 && m.steps >= m.c.maxSteps:
		m.giveUp(fmt.Sprintf("no rate passed within %d steps; the lowest tried, %d/s, failed (%s)", m.c.maxSteps, m.upper, m.upperReason))
	case m.lower == 0 && m.estimate > 0 && m.estimate < m.upper:
		m.rate = m.estimate
	case m.lower == 0 && m.long:
		// Full-length steps overturned the short ones near here: step down from the
		// failure by twice the width, then four times, and so on, not by half at once.
		m.downs++
		m.rate = max(1, m.upper-int32(max(1, int64(m.upper)*m.c.widthPPM*(1<<m.downs)/1_000_000)))
	case m.lower == 0:
		m.rate = max(m.upper/growth, 1)
	case int64(m.upper-m.lower)*1_000_000 <= m.c.widthPPM*int64(m.lower) || m.upper-m.lower <= 1:
		m.widthReached = true
		m.confirm()
	case m.steps >= m.c.maxSteps:
		m.confirm()
	case m.estimate > m.lower && m.estimate < m.upper:
		m.rate = m.estimate
	case m.probeAbove && m.aboveLower() < m.upper:
		m.rate = m.aboveLower()
	default:
		m.rate = m.lower + (m.upper-m.lower)/2
	}
}

// aboveLower is the rate a width above lower: if it fails, the width is reached at once.
func (m *machine) aboveLower() int32 {
	return m.lower + int32(max(1, int64(m.lower)*m.c.widthPPM/1_000_000))
}

func (m *machine) confirm() {
	m.confirming, m.confirmRate, m.confirmN, m.confirmOK, m.confirmGen, m.confirmAchieved = true, m.lower, 0, 0, false, 0
}

// observeConfirm takes one full-length repetition at the rate being confirmed; once all
// have run, most passing makes the answer, else that rate is a failure and the search
// goes on below it.
func (m *machine) observeConfirm(j judged) {
	m.note(j)
	m.confirmN++
	switch j.outcome {
	case benchv1.StepPass:
		m.confirmOK++
	case benchv1.StepGeneratorLimited:
		m.confirmGen = true
		m.upperReason = j.reason
	default:
		m.upperReason = j.reason
		if a := int32(j.achievedMil / 1000); int64(a)*100 < int64(m.confirmRate)*99 && (m.confirmAchieved == 0 || a < m.confirmAchieved) {
			m.confirmAchieved = a
		}
	}
	if m.confirmN < m.c.reps {
		return
	}
	if f := m.full[m.confirmRate]; 2*f[0] > f[1] {
		m.done = true
		return
	}
	m.rounds++
	m.confirming = false
	m.upper, m.upperByGenerator = m.confirmRate, m.confirmGen
	f := m.full[m.confirmRate]
	m.upperReason = fmt.Sprintf("%d of %d full-length trials failed: %s", f[1]-f[0], f[1], m.upperReason)
	if m.rounds >= MaxConfirmRounds {
		m.giveUp(fmt.Sprintf("full-length repetitions overturned the short trials %d times; last at %d/s: %s", m.rounds, m.confirmRate, m.upperReason))
		return
	}
	// What the short trials passed is superseded by the longer ones (MLRsearch): from here
	// the search goes on with full-length steps, from the throughput the failing
	// repetitions achieved, with no pass carried over.
	m.lower, m.passed = 0, nil
	m.widthReached, m.long, m.estimate, m.probeAbove = false, true, m.confirmAchieved, false
	m.advance()
}

// next is the trials the machine wants now: the rate, how many, whether short; n = 0 when
// it is done or failed.
func (m *machine) next() (rate int32, n int32, short bool) {
	switch {
	case m.done || m.failed != "":
		return 0, 0, false
	case m.confirming:
		return m.confirmRate, m.c.reps - m.confirmN, false
	}
	return m.rate, 1, !m.long
}

// phase is the status phase of the machine.
func (m *machine) phase() benchv1.SearchPhase {
	switch {
	case m.failed != "":
		return benchv1.SearchFailed
	case m.done:
		return benchv1.SearchDone
	case m.confirming:
		return benchv1.SearchConfirming
	case m.upper == 0 || m.lower == 0:
		return benchv1.SearchBracketing
	}
	return benchv1.SearchBisecting
}
