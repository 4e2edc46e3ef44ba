package report

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// limitsLines are the terminal's and the report's lines on each target's limits.
func limitsLines(run *benchv1.BenchmarkRun) []string {
	var lines []string
	for _, t := range run.Status.Targets {
		l := t.Limits
		if l == nil {
			continue
		}
		line := t.Name + ": " + l.Message
		if l.ThrottledPeriods > 0 {
			line += fmt.Sprintf("; throttled in %d of %d periods (%s in all)", l.ThrottledPeriods, l.PeriodsRun, results.FormatMicros(l.ThrottledMicros))
		}
		lines = append(lines, line)
	}
	return lines
}
