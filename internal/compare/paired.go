package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	mstats "github.com/aclements/go-moremath/stats"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// Tests a comparison is judged with (Comparison.Test).
const (
	TestMannWhitney = "MannWhitney"
	TestPairedT     = "PairedT"
)

// JudgePaired compares a same-run pair round by round: base[i] and cur[i] were measured in
// the same round, one after the other, so the machine's drift between rounds, which moves
// both alike, cancels in their ratio. Measured here, the rounds' own level moved by 15-20%
// over a run while the two arms of a round stayed within a few percent of each other: the
// unpaired test (Judge) sees the drift as noise; this one does not. The test is Student's t
// on the rounds' log ratios (go-moremath's PairedTTest), the shift exp(mean) - 1 with its
// t interval; the verdicts follow Judge's rules. At least MinRepetitions rounds.
func JudgePaired(base, cur []int64, minEffectPPM int64) benchv1.Comparison {
	c := benchv1.Comparison{BaselineRepetitions: int32(len(base)), Repetitions: int32(len(cur)), Verdict: benchv1.VerdictInconclusive, Test: TestPairedT}
	if len(base) == 0 || len(base) != len(cur) {
		c.Message = fmt.Sprintf("%d and %d rounds: a paired comparison needs both arms in every round", len(base), len(cur))
		return c
	}
	c.BaselineMicros, c.Micros = median(base), median(cur)
	lb, lc := make([]float64, len(base)), make([]float64, len(cur))
	for i := range base {
		if base[i] <= 0 || cur[i] <= 0 {
			c.Message = "a round has no positive figure on one side: no ratio to take"
			return c
		}
		lb[i], lc[i] = math.Log(float64(base[i])), math.Log(float64(cur[i]))
	}
	n := float64(len(lb))
	diff := make([]float64, len(lb))
	for i := range lb {
		diff[i] = lc[i] - lb[i]
	}
	mean, sd := mstats.Mean(diff), mstats.StdDev(diff)
	ppm := func(logShift float64) int64 { return int64(math.Round(math.Expm1(logShift) * 1e6)) }
	c.ShiftPPM = ppm(mean)
	c.ShiftMicros = int64(math.Round(float64(c.BaselineMicros) * math.Expm1(mean)))
	if len(base) < MinRepetitions {
		c.Message = fmt.Sprintf("%d rounds: a verdict needs at least %d", len(base), MinRepetitions)
		return c
	}
	t, err := mstats.PairedTTest(lc, lb, 0, mstats.LocationDiffers)
	if errors.Is(err, mstats.ErrZeroVariance) {
		// Every round gave the same ratio: the shift is exact.
		t, sd = &mstats.TTestResult{P: 0}, 0
		if mean == 0 {
			t.P = 1
		}
	} else if err != nil {
		c.Message = err.Error()
		return c
	}
	c.PValue = strconv.FormatFloat(t.P, 'f', 4, 64)
	q := mstats.InvCDF(mstats.TDist{V: n - 1})
	se := sd / math.Sqrt(n)
	lo, hi := ppm(mean-q(1-Alpha/2)*se), ppm(mean+q(1-Alpha/2)*se)
	c.ShiftLowPPM, c.ShiftHighPPM = &lo, &hi
	mde := max(ppm((q(1-Alpha/2)+q(power))*se), minEffectPPM)
	c.MinDetectablePPM = &mde
	eqLo, eqHi := ppm(mean-q(1-Alpha)*se), ppm(mean+q(1-Alpha)*se)
	significant := t.P < Alpha
	switch {
	case significant && c.ShiftPPM >= minEffectPPM:
		c.Verdict = benchv1.VerdictSlower
	case significant && c.ShiftPPM <= -minEffectPPM:
		c.Verdict = benchv1.VerdictFaster
	case (eqLo > -minEffectPPM && eqHi < minEffectPPM) || significant:
		c.Verdict = benchv1.VerdictNoChange
	default:
		c.Message = fmt.Sprintf("not significant (p %s), and the shift's 90%% interval [%s, %s] reaches past ±%s: too noisy to rule a change in or out; more rounds narrow it",
			c.PValue, units.FormatSignedPPM(eqLo), units.FormatSignedPPM(eqHi), units.FormatPPM(minEffectPPM))
	}
	return c
}
