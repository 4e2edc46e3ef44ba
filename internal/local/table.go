package local

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// WriteTable prints the result rows for a terminal: medians over the repetitions, n, and
// why a row cannot be trusted when it cannot.
func WriteTable(w io.Writer, run *benchv1.BenchmarkRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tSCENARIO\tLOAD\tN\tRPS\tP50\tP90\tP99\tP99.9\tMAX\tERRORS\tCPU\tMEMORY\tVALID")
	for _, r := range run.Status.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Target, r.Scenario, LoadLabel(run.Spec.Load, r.LoadPoint), r.Repetitions,
			FormatMilliRPS(r.AchievedMilliRPS.Median),
			results.FormatMicros(r.P50Micros.Median), results.FormatMicros(r.P90Micros.Median),
			results.FormatMicros(r.P99Micros.Median), results.FormatMicros(r.P999Micros.Median),
			results.FormatMicros(r.MaxMicros.Median), FormatPPM(r.ErrorRatePPM.Median),
			statOr(r.CPUMillicores, FormatMillicores), statOr(r.MemoryBytes, FormatBytes), validity(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(run.Status.Results) == 0 {
		fmt.Fprintln(w, "(no trial finished: no result rows)")
	}
	// Skipped and failed trials have no row of their own (or only part of one): say why.
	seen := map[string]bool{}
	for _, t := range run.Status.Trials {
		if t.Phase != benchv1.TrialSkipped && t.Phase != benchv1.TrialFailed {
			continue
		}
		msg, _, _ := strings.Cut(t.Message, "\n")
		line := fmt.Sprintf("%s %s/%s: %s", strings.ToLower(string(t.Phase)), t.Target, t.Scenario, msg)
		if t.Phase == benchv1.TrialFailed {
			line = fmt.Sprintf("failed %s: %s", t.Name, msg)
		}
		if !seen[line] {
			seen[line] = true
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

// LoadLabel is a load point with its unit: "300/s" (open model) or "64 conn" (closed).
func LoadLabel(l benchv1.Load, point int32) string {
	if l.Model == "closed" {
		return fmt.Sprintf("%d conn", point)
	}
	return fmt.Sprintf("%d/s", point)
}

func validity(r benchv1.ResultRow) string {
	if r.Valid {
		return "yes"
	}
	if len(r.Flags) == 0 {
		return "no"
	}
	return "NO: " + strings.Join(r.Flags, ",")
}

func statOr(s *benchv1.Stat, f func(int64) string) string {
	if s == nil {
		return "-"
	}
	return f(s.Median)
}

// FormatMilliRPS prints a rate in requests per second with one decimal.
func FormatMilliRPS(m int64) string { return strconv.FormatFloat(float64(m)/1000, 'f', 1, 64) }

// FormatPPM prints an error rate as a percentage.
func FormatPPM(ppm int64) string {
	if ppm == 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(ppm)/1e4, 'g', 3, 64) + "%"
}

// FormatMillicores prints CPU in cores: "0.42".
func FormatMillicores(m int64) string { return strconv.FormatFloat(float64(m)/1000, 'f', 2, 64) }

// FormatBytes prints memory in MiB or GiB.
func FormatBytes(b int64) string {
	if b >= 1<<30 {
		return strconv.FormatFloat(float64(b)/(1<<30), 'f', 2, 64) + "GiB"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + "MiB"
}
