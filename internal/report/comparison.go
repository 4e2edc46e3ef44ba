package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// WriteComparison prints every row's verdict against the baseline (nothing when the run
// has none): the metric's medians on both sides with n, the Hodges-Lehmann shift with its
// 95% interval, the Mann-Whitney p-value and the verdict, then the Regressed condition.
func WriteComparison(w io.Writer, run *benchv1.BenchmarkRun) error {
	w = textsafe.NewWriter(w) // names and messages are the tenant's and the target's text
	ref := run.Status.Baseline
	if summary := compare.Summary(run); ref == nil {
		if summary != "" {
			_, err := fmt.Fprintln(w, summary)
			return err
		}
		return nil
	}
	var against []string
	if ref.Pairs != "" {
		against = append(against, "within the run: "+ref.Pairs)
	}
	if ref.Run != "" {
		against = append(against, fmt.Sprintf("against %s (%s)", ref.Run, ref.Source))
	}
	fmt.Fprintf(w, "%s; %s, minimum effect %s:\n", strings.Join(against, "; "), ref.Metric, ref.MinEffect)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tSCENARIO\tLOAD\tAGAINST\tMETRIC\tSRC\tBASELINE\tTHIS RUN\tSHIFT [95% CI]\tP\tDETECTS\tVERDICT")
	for _, r := range comparedRows(run) {
		cl := r.cells
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.row.Target, r.row.Scenario, LoadLabel(run.Spec.Load, r.row.LoadPoint),
			r.vs, r.c.Metric, cl.Source, cl.Baseline, cl.This, cl.Shift, cl.P, cl.Detects, cl.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range run.Status.Results {
		if c := r.Baseline; c != nil && c.Message != "" {
			fmt.Fprintf(w, "%s/%s@%d: %s\n", r.Target, r.Scenario, r.LoadPoint, c.Message)
		}
	}
	if run.Status.Verdict != "" {
		fmt.Fprintln(w, "verdict: "+run.Status.Verdict)
	}
	_, err := fmt.Fprintln(w, compare.Summary(run))
	return err
}

// compared is one compared row as the text and Markdown tables print it: vs is its
// baseline target, or the baseline run.
type compared struct {
	row   benchv1.ResultRow
	c     benchv1.Comparison
	cells comparisonCell
	vs    string
}

// comparedRows are run's result rows that carry a comparison, in row order.
func comparedRows(run *benchv1.BenchmarkRun) []compared {
	var out []compared
	for _, r := range run.Status.Results {
		if r.Baseline == nil {
			continue
		}
		vs := r.Baseline.BaselineTarget
		if vs == "" && run.Status.Baseline != nil {
			vs = run.Status.Baseline.Run
		}
		out = append(out, compared{row: r, c: *r.Baseline, cells: comparisonCells(*r.Baseline), vs: vs})
	}
	return out
}

// comparisonCell is a row's comparison as the table and the report print it.
type comparisonCell struct {
	Source, Baseline, This, Shift, P, Detects, Verdict string
}

func comparisonCells(c benchv1.Comparison) comparisonCell {
	cl := comparisonCell{Source: NoFigure, Baseline: NoFigure, This: NoFigure, Shift: NoFigure, P: NoFigure, Detects: NoFigure, Verdict: string(c.Verdict)}
	if c.MinDetectablePPM != nil {
		cl.Detects = "±" + units.FormatPPM(*c.MinDetectablePPM)
	}
	if c.PValue == "" {
		return cl
	}
	switch c.Source {
	case benchv1.LatencyWire:
		cl.Source = "wire"
	case benchv1.LatencyGenerator:
		cl.Source = "k6"
	default:
		cl.Source = "cpu"
	}
	cl.Baseline = fmt.Sprintf("%s (n=%d)", results.FormatMicros(c.BaselineMicros), c.BaselineRepetitions)
	cl.This = fmt.Sprintf("%s (n=%d)", results.FormatMicros(c.Micros), c.Repetitions)
	cl.Shift, cl.P = compare.FormatShift(c), c.PValue
	return cl
}
