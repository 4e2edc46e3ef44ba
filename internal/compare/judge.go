// Package compare judges a run against a baseline run: per result row, Faster, Slower,
// NoChange or Inconclusive from the repetitions of both (internal/stats), and the run's
// Regressed condition. The operator, the local mode and `gauntlet compare` all call it.
package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/stats"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// Alpha is the significance level of the Mann-Whitney test.
const Alpha = 0.05

// MinRepetitions a side: below 4, no split of the repetitions is rare enough to reject at
// alpha 0.05 (with 3 a side, the most extreme one has p = 0.1).
const MinRepetitions = 4

// confidence of the Hodges-Lehmann interval reported, matching Alpha.
const confidence = 1 - Alpha

// equivalenceConfidence is the interval NoChange is judged on: two one-sided tests at Alpha
// (TOST, Schuirmann 1987) show a shift within ± the minimum effect exactly when the 1 - 2
// Alpha interval lies inside it.
const equivalenceConfidence = 1 - 2*Alpha

// Defaults of spec.baseline (the schema defaults them too; a status.yaml written by hand
// or by an older version may lack them).
const (
	DefaultMetric    = "p50"
	DefaultMinEffect = "0.05"
)

// Judge compares one metric's repetitions, base against cur (microseconds), with a minimum
// effect in parts per million of the baseline's median:
//   - Slower (Faster): p < Alpha and the shift is at least +minEffect (at most -minEffect);
//   - NoChange: the shift is shown to lie within ±minEffect (two one-sided tests at Alpha:
//     its 90% interval inside the band), or p < Alpha and the shift is smaller than
//     minEffect (real, but too small to matter);
//   - Inconclusive: fewer than MinRepetitions a side, or neither (a change of the minimum
//     effect can be neither ruled in nor out).
func Judge(base, cur []int64, minEffectPPM int64) benchv1.Comparison {
	c := benchv1.Comparison{BaselineRepetitions: int32(len(base)), Repetitions: int32(len(cur)), Verdict: benchv1.VerdictInconclusive, Test: TestMannWhitney}
	if len(base) == 0 || len(cur) == 0 {
		c.Message = "no repetition to compare on one side"
		return c
	}
	c.BaselineMicros, c.Micros = median(base), median(cur)
	x, y := floats(base), floats(cur)
	u, _ := stats.MannWhitney(x, y)
	hl, _ := stats.HodgesLehmann(x, y, confidence)
	c.PValue = strconv.FormatFloat(u.P, 'f', 4, 64)
	c.ShiftMicros = int64(math.Round(hl.Estimate))
	ref := float64(max(c.BaselineMicros, 1))
	rel := func(v float64) int64 { return int64(math.Round(v / ref * 1e6)) }
	c.ShiftPPM = rel(hl.Estimate)
	if !math.IsInf(hl.Low, 0) {
		loPPM, hiPPM := rel(hl.Low), rel(hl.High)
		c.ShiftLowPPM, c.ShiftHighPPM = &loPPM, &hiPPM
	}
	if len(base) < MinRepetitions || len(cur) < MinRepetitions {
		c.Message = fmt.Sprintf("%d and %d repetitions: a verdict needs at least %d a side", len(base), len(cur), MinRepetitions)
		return c
	}
	if mde, ok := minDetectable(hl); ok {
		v := max(rel(mde), minEffectPPM)
		c.MinDetectablePPM = &v
	}
	significant := u.P < Alpha
	eq, _ := stats.HodgesLehmann(x, y, equivalenceConfidence)
	withinBand := !math.IsInf(eq.Low, 0) && rel(eq.Low) > -minEffectPPM && rel(eq.High) < minEffectPPM
	switch {
	case significant && c.ShiftPPM >= minEffectPPM:
		c.Verdict = benchv1.VerdictSlower
	case significant && c.ShiftPPM <= -minEffectPPM:
		c.Verdict = benchv1.VerdictFaster
	case withinBand || significant:
		c.Verdict = benchv1.VerdictNoChange
	default:
		c.Message = fmt.Sprintf("not significant (p %s), and the shift's 90%% interval [%s, %s] reaches past ±%s: too noisy to rule a change in or out; more repetitions narrow it",
			c.PValue, units.FormatSignedPPM(rel(eq.Low)), units.FormatSignedPPM(rel(eq.High)), units.FormatPPM(minEffectPPM))
	}
	return c
}

// power is the probability of a verdict the minimum detectable effect is stated at.
const power = 0.8

// minDetectable is the smallest shift (µs) detected with probability power at Alpha, two
// sided, given the spread the repetitions showed: (z(1-Alpha/2) + z(power)) standard errors,
// the standard error read off the Hodges-Lehmann interval (its half width over the z of its
// actual coverage, which the exact distribution makes a little above 95%). The normal
// approximation is the usual one for a power statement (Noether 1987 for Mann-Whitney).
func minDetectable(hl stats.Shift) (float64, bool) {
	if math.IsInf(hl.Low, 0) || math.IsInf(hl.High, 0) || hl.Confidence <= 0 || hl.Confidence >= 1 {
		return 0, false
	}
	z := func(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) } // the normal quantile
	se := (hl.High - hl.Low) / (2 * z(1-(1-hl.Confidence)/2))
	return (z(1-Alpha/2) + z(power)) * se, true
}

// FormatShift prints a comparison's relative shift with its interval: "+20.3% [+15.1, +26.0]".
func FormatShift(c benchv1.Comparison) string {
	s := units.FormatSignedPPM(c.ShiftPPM)
	if c.ShiftLowPPM != nil {
		s += " [" + units.FormatSignedPPMNumber(*c.ShiftLowPPM) + ", " + units.FormatSignedPPMNumber(*c.ShiftHighPPM) + "]"
	}
	return s
}

func median(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2] // the lower middle, as results.Summarize: a measured value
}

func floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
