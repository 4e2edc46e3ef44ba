package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// WriteTable prints the result rows for a terminal: medians over the repetitions, n, and
// why a row cannot be trusted when it cannot. P50..MAX are the latency of record (SRC says
// whose: the wire or k6); k6's own p50/p99 and the generator floor stand beside them.
func WriteTable(w io.Writer, run *benchv1.BenchmarkRun) error {
	w = textsafe.NewWriter(w) // names and messages are the tenant's and the target's text
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tSCENARIO\tLOAD\tN\tRPS\tSRC\tP50\tP90\tP99\tP99.9\tMAX\tK6 P50\tK6 P99\tFLOOR P99\tERRORS\tCPU\tMEMORY\tVALID")
	noise := false
	for _, r := range run.Status.Results {
		c := cellsOf(run.Spec.Load, r, false)
		noise = noise || k6IsFloor(r)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Target, r.Scenario, c.Load, r.Repetitions, c.RPS, c.Source, c.P50, c.P90, c.P99, c.P999, c.Max,
			c.K6P50, c.K6P99, c.FloorP99, c.Errors, c.CPU, c.Memory, c.Validity)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(run.Status.Results) == 0 {
		fmt.Fprintln(w, "(no trial finished: no result rows)")
	} else {
		fmt.Fprintln(w, "SRC wire: latency between request and response packets on the target's port; k6: the generator's timings.")
		if noise {
			fmt.Fprintf(w, "*: k6's p99 is under %dx the generator floor (k6 against the null responder): the generator's, not the target's.\n", results.NoiseFactor)
		}
	}
	if p := run.Status.Placement; p != nil {
		fmt.Fprintf(w, "CPUs: %s\n", p.Message)
	}
	for _, l := range limitsLines(run) {
		fmt.Fprintf(w, "limits: %s\n", l)
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

// sourceLabel names a row's latency of record.
func sourceLabel(r benchv1.ResultRow) string {
	if r.LatencySource == benchv1.LatencyWire {
		return "wire"
	}
	return "k6"
}

// k6IsFloor says whether k6's p99 of the row is within the generator-noise rule of its floor.
func k6IsFloor(r benchv1.ResultRow) bool {
	return r.GeneratorFloor != nil && r.Repetitions > 0 && results.GeneratorNoise(r.P99Micros.Median, r.GeneratorFloor.P99Micros)
}

// LoadLabel is a load point with its unit: "300/s" (open model) or "64 conn" (closed).
func LoadLabel(l benchv1.Load, point int32) string {
	if l.Model == benchv1.LoadModelClosed {
		return fmt.Sprintf("%d conn", point)
	}
	return fmt.Sprintf("%d/s", point)
}

// NoFigure stands where a row has no measurement (every repetition failed): a zero there
// would read as a result.
const NoFigure = "–"

// cells are one result row's figures as the table and the report print them.
// P50..Max are the latency of record (Source: wire or k6); K6P50 and K6P99 are k6's own,
// starred when under the generator-noise rule; Floor is the generator floor's p50–p99.
type cells struct {
	Load, RPS, Source, P50, P90, P99, P999, Max, K6P50, K6P99, FloorP99, Floor, Errors, CPU, Memory, Validity string
}

// cellsOf formats a row; withSpread adds the min–max over the repetitions to latencies. A row
// with no succeeded repetition has no figures at all, only its load point and why.
func cellsOf(l benchv1.Load, r benchv1.ResultRow, withSpread bool) cells {
	c := cells{Load: LoadLabel(l, r.LoadPoint), Validity: validity(r)}
	c.FloorP99, c.Floor = NoFigure, NoFigure
	if f := r.GeneratorFloor; f != nil {
		c.FloorP99 = results.FormatMicros(f.P99Micros)
		c.Floor = results.FormatMicros(f.P50Micros) + "–" + c.FloorP99
	}
	if r.Repetitions == 0 {
		c.RPS, c.Source, c.P50, c.P90, c.P99, c.P999, c.Max, c.K6P50, c.K6P99, c.Errors, c.CPU, c.Memory =
			NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure, NoFigure
		return c
	}
	lat := func(s benchv1.Stat) string { return results.FormatMicros(s.Median) }
	if withSpread {
		lat = spread
	}
	c.RPS = units.FormatMilliRPS(r.AchievedMilliRPS.Median)
	rec := []benchv1.Stat{r.P50Micros, r.P90Micros, r.P99Micros, r.P999Micros, r.MaxMicros}
	if r.LatencySource == benchv1.LatencyWire && r.Wire != nil {
		rec = []benchv1.Stat{r.Wire.P50Micros, r.Wire.P90Micros, r.Wire.P99Micros, r.Wire.P999Micros, r.Wire.MaxMicros}
	}
	c.Source = sourceLabel(r)
	c.P50, c.P90, c.P99, c.P999, c.Max = lat(rec[0]), lat(rec[1]), lat(rec[2]), lat(rec[3]), lat(rec[4])
	c.K6P50, c.K6P99 = lat(r.P50Micros), lat(r.P99Micros)
	if k6IsFloor(r) {
		c.K6P99 += "*"
	}
	c.Errors = units.FormatPPM(r.ErrorRatePPM.Median)
	c.CPU, c.Memory = statOr(r.CPUMillicores, units.FormatMillicores), statOr(r.MemoryBytes, units.FormatBytes)
	return c
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
		return NoFigure
	}
	return f(s.Median)
}
