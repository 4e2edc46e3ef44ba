package compare

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// severity orders verdicts for the one-line answer: the row a user must see first.
var severity = map[benchv1.RegressionVerdict]int{
	benchv1.VerdictSlower: 4, benchv1.VerdictInconclusive: 3, benchv1.VerdictFaster: 2, benchv1.VerdictNoChange: 1,
}

// Verdict is status.verdict: the most severe row (Slower, then Inconclusive, Faster,
// NoChange; the largest shift among equals) with its shift, interval and detectable effect,
// then the counts, such as "v2/ping@400 vs v1: Slower +5.1% [+3.2, +7.4] (1 Slower, 2
// NoChange)". "" when no row was compared.
func Verdict(run *benchv1.BenchmarkRun) string {
	var worst *benchv1.ResultRow
	counts := map[benchv1.RegressionVerdict]int{}
	for i := range run.Status.Results {
		r := &run.Status.Results[i]
		c := r.Baseline
		if c == nil {
			continue
		}
		counts[c.Verdict]++
		if worst == nil || severity[c.Verdict] > severity[worst.Baseline.Verdict] ||
			(c.Verdict == worst.Baseline.Verdict && abs(c.ShiftPPM) > abs(worst.Baseline.ShiftPPM)) {
			worst = r
		}
	}
	if worst == nil {
		return ""
	}
	c := worst.Baseline
	against := "baseline"
	if c.BaselineTarget != "" {
		against = c.BaselineTarget
	} else if run.Status.Baseline != nil && run.Status.Baseline.Run != "" {
		against = run.Status.Baseline.Run
	}
	s := fmt.Sprintf("%s vs %s: %s", rowLabel(*worst), against, c.Verdict)
	if c.PValue != "" {
		s += " " + FormatShift(*c)
	}
	if c.MinDetectablePPM != nil && c.Verdict != benchv1.VerdictSlower && c.Verdict != benchv1.VerdictFaster {
		s += ", detects " + units.FormatPPM(*c.MinDetectablePPM)
	}
	var parts []string
	for _, v := range []benchv1.RegressionVerdict{benchv1.VerdictSlower, benchv1.VerdictFaster, benchv1.VerdictNoChange, benchv1.VerdictInconclusive} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
