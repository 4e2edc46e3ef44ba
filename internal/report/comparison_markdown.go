package report

import (
	"fmt"
	"io"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
)

// WriteComparisonMarkdown writes what WriteComparison prints as GitHub-flavoured Markdown,
// for a CI job to post as a pull request's comment or check summary: the answer first (a
// reviewer reads one line), then the table of compared rows, then the rows' notes.
func WriteComparisonMarkdown(w io.Writer, run *benchv1.BenchmarkRun) error {
	w = textsafe.NewWriter(w) // names and messages are the tenant's and the target's text
	fmt.Fprintf(w, "### Gauntlet: %s\n\n", MarkdownCell(run.Name))
	summary := compare.Summary(run)
	if summary != "" {
		fmt.Fprintf(w, "**%s**\n\n", MarkdownCell(summary))
	}
	ref := run.Status.Baseline
	if ref == nil {
		return nil
	}
	if run.Status.Verdict != "" {
		fmt.Fprintf(w, "Most severe row: `%s`\n\n", strings.ReplaceAll(run.Status.Verdict, "`", "'"))
	}
	var against []string
	if ref.Pairs != "" {
		against = append(against, "within the run: "+ref.Pairs)
	}
	if ref.Run != "" {
		against = append(against, "against run "+ref.Run)
	}
	fmt.Fprintf(w, "%s; %s, minimum effect %s.\n\n", MarkdownCell(strings.Join(against, "; ")), ref.Metric, ref.MinEffect)
	fmt.Fprintln(w, "| row | against | metric | source | baseline | this run | shift [95% CI] | p | detects | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range comparedRows(run) {
		cl := r.cells
		verdict := cl.Verdict
		if r.c.Verdict == benchv1.VerdictSlower {
			verdict = "**" + verdict + "**"
		}
		row := fmt.Sprintf("%s/%s @ %s", r.row.Target, r.row.Scenario, LoadLabel(run.Spec.Load, r.row.LoadPoint))
		cells := []string{row, r.vs, r.c.Metric, cl.Source, cl.Baseline, cl.This, cl.Shift, cl.P, cl.Detects}
		for i := range cells {
			cells[i] = MarkdownCell(cells[i])
		}
		fmt.Fprintf(w, "| %s | %s |\n", strings.Join(cells, " | "), verdict)
	}
	var notes []string
	for _, r := range run.Status.Results {
		if c := r.Baseline; c != nil && c.Message != "" {
			notes = append(notes, fmt.Sprintf("- %s/%s@%d: %s", r.Target, r.Scenario, r.LoadPoint, MarkdownCell(c.Message)))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	return nil
}

// MarkdownCell makes text safe inside a Markdown table cell or line: a pipe would end the
// cell, a newline the row, and `<` would open HTML that GitHub renders.
func MarkdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
