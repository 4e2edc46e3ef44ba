package history

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown for a pull request's comment
// or check summary: the answer first, then the alerts (what a reviewer acts on), then every
// change point; series without one are counted, not listed.
func WriteMarkdown(w io.Writer, rep *Report) error {
	if len(rep.Runs) == 0 {
		_, err := fmt.Fprintln(w, "### Gauntlet history\n\nno runs")
		return err
	}
	first, last := rep.Runs[0], rep.Runs[len(rep.Runs)-1]
	verdict := "No regression"
	if rep.Regressed {
		verdict = fmt.Sprintf("%d regression(s)", rep.Regressions)
	}
	fmt.Fprintf(w, "### Gauntlet history: %s starting within the newest %d runs\n\n", verdict, rep.Last)
	fmt.Fprintf(w, "%d runs from %s (`%s`) to %s (`%s`).\n\n", len(rep.Runs),
		first.Time.UTC().Format(time.RFC3339), cell(first.Name), last.Time.UTC().Format(time.RFC3339), cell(last.Name))
	row := func(s Series) string {
		r := s.Target + "/" + s.Scenario
		if s.LoadPoint != 0 {
			r += "@" + strconv.Itoa(int(s.LoadPoint))
		}
		return cell(r)
	}
	var alerts, changes []string
	quiet := 0
	for _, s := range rep.Series {
		if c := s.Alert; c != nil {
			state := "alert"
			if c.Recent {
				state = "**new alert**"
			}
			alerts = append(alerts, fmt.Sprintf("| %s | %s | #%d `%s` | %s | %s | %+.1f%% | %s | %d | %s |", row(s), s.Figure,
				c.Run+1, cell(c.RunName), format(c.Before, s.Unit), format(c.After, s.Unit), c.ChangePercent, formatP(c.PValue), c.RunsAfter, state))
		}
		if len(s.ChangePoints) == 0 {
			quiet++
		}
		for _, c := range s.ChangePoints {
			changes = append(changes, fmt.Sprintf("| %s | %s | #%d `%s` | %s | %s | %+.1f%% | %.3f | %s |", row(s), s.Figure,
				c.Run+1, cell(c.RunName), format(c.Before, s.Unit), format(c.After, s.Unit), c.ChangePercent, c.PValue, c.Direction))
		}
	}
	if len(alerts) > 0 {
		fmt.Fprintln(w, "| row | figure | since run | before | after | change | p | runs at the new level | |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		fmt.Fprintf(w, "%s\n\n", strings.Join(alerts, "\n"))
	}
	if len(changes) > 0 {
		fmt.Fprintln(w, "<details><summary>Change points</summary>")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| row | figure | at run | before | after | change | p | direction |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		fmt.Fprintf(w, "%s\n\n</details>\n\n", strings.Join(changes, "\n"))
	}
	_, err := fmt.Fprintf(w, "%d of %d series without a change point.\n", quiet, len(rep.Series))
	return err
}

// cell makes a name safe inside a Markdown table cell or code span.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
