package history

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestAlertSweep measures the alert's rates under other tunings than the default, on
// TestAlertRates' histories (same cases, same seeds: GAUNTLET_ALERT_SEEDS and
// GAUNTLET_ALERT_HISTORIES apply): E-Divisive's change points are found once per history
// and analysis, then every tuning of the grid scans them. It prints the default's rates and
// the 25 tunings that find the most 10% steps while every stable case and both blips stay
// at 5% at most; a tuning that met every goal would be listed with "all goals". Before the
// grid it checks, on the first histories of each case, that its scan decides as Analyze
// does. GAUNTLET_ALERT_SWEEP=1 go test ./internal/history -run TestAlertSweep -v -timeout 60m
func TestAlertSweep(t *testing.T) {
	if os.Getenv("GAUNTLET_ALERT_SWEEP") == "" {
		t.Skip("set GAUNTLET_ALERT_SWEEP=1: minutes of CPU")
	}
	histories, offset := alertHistories(t)
	cases := rateCases()
	data := make([][][]analysis, len(cases)) // case, history, analyses after each run
	for ci, c := range cases {
		for h := range histories {
			data[ci] = append(data[ci], c.analyses(t, uint64(1000*ci+h)+offset))
		}
	}
	alerts := func(tu tuning, a analysis) bool {
		st, ok := tu.scan(a.x, a.cps, 0, true, DefaultMinRuns)
		return ok && st.pvalue <= tu.totalLevel()
	}
	for ci := range cases {
		for h := range min(histories, 10) {
			for _, a := range data[ci][h] {
				if got, want := alerts(defaultTuning, a), alerting(t, a.x); got != want {
					t.Fatalf("%s, history %d after %d runs: the sweep's scan says %v, Analyze %v", cases[ci].name, h, len(a.x), got, want)
				}
			}
		}
	}
	rates := func(tu tuning) []float64 {
		out := make([]float64, len(cases))
		for ci := range cases {
			hits := 0
			for _, as := range data[ci] {
				if slices.ContainsFunc(as, func(a analysis) bool { return alerts(tu, a) }) {
					hits++
				}
			}
			out[ci] = float64(hits) / float64(histories)
		}
		return out
	}
	type result struct {
		tu    tuning
		r     []float64
		holds bool // every stable case and both blips at 5% at most
	}
	// The grid: every combination of these axes' values, the first axis varying slowest.
	tunings := []tuning{defaultTuning}
	axis := func(n int, set func(tu *tuning, i int)) {
		var next []tuning
		for _, tu := range tunings {
			for i := range n {
				set(&tu, i)
				next = append(next, tu)
			}
		}
		tunings = next
	}
	axis(2, func(tu *tuning, i int) { tu.exact = i == 1 })
	axis(2, func(tu *tuning, i int) { tu.maxAge = []int{10, 6}[i] })
	axis(2, func(tu *tuning, i int) { tu.minBefore = []int{8, 12}[i] })
	axis(3, func(tu *tuning, i int) { tu.shortLevel = []float64{2, 1, 0.5}[i] })
	axis(2, func(tu *tuning, i int) { tu.cusumK = []float64{0.8, 0.95}[i] })
	axis(3, func(tu *tuning, i int) { tu.cusumH = []float64{1.6, 2.0, 2.4}[i] })
	axis(3, func(tu *tuning, i int) { tu.phiMargin = []float64{0.5, 0.75, 1}[i] })
	var grid []result
	for _, tu := range tunings {
		r := rates(tu)
		holds := true
		for ci, c := range cases {
			if c.goal == "≤ 5%" && r[ci] > 0.05 {
				holds = false
			}
		}
		grid = append(grid, result{tu, r, holds})
	}
	tenPct := slices.IndexFunc(cases, func(c alertCase) bool { return c.name == "10% step, independent" })
	slices.SortStableFunc(grid, func(a, b result) int {
		switch {
		case a.holds != b.holds:
			if a.holds {
				return -1
			}
			return 1
		case a.r[tenPct] != b.r[tenPct]:
			if a.r[tenPct] > b.r[tenPct] {
				return -1
			}
			return 1
		}
		return 0
	})
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	head := "TUNING\tGOALS"
	for _, c := range cases {
		head += "\t" + c.name
	}
	fmt.Fprintln(tw, head)
	row := func(name string, r result) {
		goals := "false alarms ≤ 5%"
		if !r.holds {
			goals = "false alarms over 5%"
		}
		if r.holds && cases[tenPct].ok != nil && r.r[tenPct] >= 0.85 {
			goals = "all goals"
		}
		line := name + "\t" + goals
		for _, x := range r.r {
			line += fmt.Sprintf("\t%.1f%%", 100*x)
		}
		fmt.Fprintln(tw, line)
	}
	def := rates(defaultTuning)
	row("default", result{defaultTuning, def, true})
	for _, r := range grid[:min(25, len(grid))] {
		row(fmt.Sprintf("exact %v age %d before %d short %.1f K %.2f H %.1f φ margin %.2f", r.tu.exact, r.tu.maxAge, r.tu.minBefore,
			r.tu.shortLevel, r.tu.cusumK, r.tu.cusumH, r.tu.phiMargin), r)
	}
	tw.Flush()
	fmt.Fprintf(os.Stdout, "%d histories a case, %d tunings\n%s", histories, len(grid), b.String())
}
