package history

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// WriteText prints the report as a table: one line per change point, "none" for a series
// without one, and a line per alert (Slower ALERT; NEW when it starts within the newest
// Last runs, the regressions counted).
func WriteText(w io.Writer, rep *Report) error {
	if len(rep.Runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	first, last := rep.Runs[0], rep.Runs[len(rep.Runs)-1]
	if len(rep.Runs) == 1 {
		fmt.Fprintf(w, "1 run, %s (%s): a change needs runs either side\n\n", first.Time.UTC().Format(time.RFC3339), first.Name)
	} else {
		fmt.Fprintf(w, "%d runs from %s (%s) to %s (%s)\n\n", len(rep.Runs),
			first.Time.UTC().Format(time.RFC3339), first.Name, last.Time.UTC().Format(time.RFC3339), last.Name)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROW\tFIGURE\tRUNS\tCHANGE AT RUN\tBEFORE\tAFTER\tCHANGE\tP\tDIRECTION")
	for _, s := range rep.Series {
		row := s.Target + "/" + s.Scenario
		if s.LoadPoint != 0 {
			row += "@" + strconv.Itoa(int(s.LoadPoint))
		}
		if len(s.ChangePoints) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%d\tnone\t\t\t\t\t\n", row, s.Figure, s.Points)
		}
		for _, c := range s.ChangePoints {
			fmt.Fprintf(tw, "%s\t%s\t%d\t#%d %s\t%s\t%s\t%+.1f%%\t%.3f\t%s\n", row, s.Figure, s.Points,
				c.Run+1, c.RunName, format(c.Before, s.Unit), format(c.After, s.Unit), c.ChangePercent, c.PValue, c.Direction)
		}
		if c := s.Alert; c != nil {
			dir := "Slower ALERT"
			if c.Recent {
				dir += " NEW"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t#%d %s\t%s\t%s\t%+.1f%%\t%s\t%s\n", row, s.Figure, s.Points,
				c.Run+1, c.RunName, format(c.Before, s.Unit), format(c.After, s.Unit), c.ChangePercent, formatP(c.PValue), dir)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict := "no regression"
	if rep.Regressed {
		verdict = fmt.Sprintf("%d regression(s)", rep.Regressions)
	}
	_, err := fmt.Fprintf(w, "\n%s starting within the newest %d runs\n", verdict, rep.Last)
	return err
}

func format(v float64, unit string) string {
	switch {
	case unit == "µs" && v >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + "ms"
	case unit == "µs":
		return strconv.FormatFloat(v, 'f', 0, 64) + "µs"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "/s"
}

// formatP writes a p-value; small ones in exponent form (the alert's go far below 0.001).
func formatP(p float64) string {
	if p < 0.001 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}
