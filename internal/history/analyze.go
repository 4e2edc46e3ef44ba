package history

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/changepoint"
)

// Options of an analysis.
type Options struct {
	Detect changepoint.Options
	// Last is how many of the newest runs a regression may start in to count as new.
	Last int
	// Figures to analyse (nil: all).
	Figures []string
	// Alert decides which series alert (alert.go).
	Alert AlertOptions
	// Floor, when set, is the index of the first run a series' old level may be read from
	// for its alert: a triaged step's run, so the step it accepted does not alert again.
	Floor func(k Key, figure string) int
}

// DefaultMinMagnitude is the smallest relative change reported, by the CLI and the
// operator alike.
const DefaultMinMagnitude = 0.03

// DefaultLast: a level shift is found once about three runs stand at the new level (see
// docs/history.md), so the newest five leave it time to be seen.
const DefaultLast = 5

// Report is the analysis of a history.
type Report struct {
	Runs []Run `json:"runs"`
	// Series holds every row × figure with at least one point, in row then figure order.
	Series []Series `json:"series"`
	// Regressions counts the series' alerts (Series.Alert) that start within the newest
	// Last runs; Regressed is Regressions > 0. Alerts counts every alert.
	Regressions int  `json:"regressions"`
	Regressed   bool `json:"regressed"`
	Alerts      int  `json:"alerts"`
	Last        int  `json:"last"`
}

// Series is one row's figure over the runs that measured it.
type Series struct {
	Key
	Figure string `json:"figure"`
	Unit   string `json:"unit"`
	// Points is how many runs measured it.
	Points       int      `json:"points"`
	ChangePoints []Change `json:"changePoints,omitempty"`
	// Alert is a step to a worse level that starts within the newest runs, has lasted, and
	// passes the false discovery control across the series (alert.go); nil when none.
	Alert *Change `json:"alert,omitempty"`
}

// Direction of a change: Slower is a regression (latency or CPU up, capacity down).
const (
	Slower = "Slower"
	Faster = "Faster"
)

// Change is a change point: the run that starts the new level.
type Change struct {
	// Run indexes Report.Runs; RunName and Source repeat its name and file.
	Run     int    `json:"run"`
	RunName string `json:"runName"`
	Source  string `json:"source"`
	// Before and After are the mean levels either side (up to the neighbouring change
	// points), in the series' unit.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// ChangePercent is After/Before - 1, in percent; Magnitude is Otava's relative
	// magnitude (the larger of the forward and backward changes).
	ChangePercent float64 `json:"changePercent"`
	Magnitude     float64 `json:"magnitude"`
	PValue        float64 `json:"pvalue"`
	Direction     string  `json:"direction"`
	// Recent: it starts within the newest Last runs.
	Recent bool `json:"recent"`
	// Alert marks a Series.Alert: PValue is then the alert's test's (alert.go), and
	// RunsAfter the runs at the new level.
	Alert     bool `json:"alert,omitempty"`
	RunsAfter int  `json:"runsAfter,omitempty"`
}

// Analyze finds the change points of every row's figures over runs (oldest first). A run
// is read from Run when set, else from Rows (runs held in memory as their figures only).
func Analyze(runs []Run, o Options) (*Report, error) {
	if o.Last <= 0 {
		o.Last = DefaultLast
	}
	want := o.Figures
	if want == nil {
		want = Figures
	}
	for _, f := range want {
		if !slices.Contains(Figures, f) {
			return nil, fmt.Errorf("figure %q is not one of %s", f, strings.Join(Figures, ", "))
		}
	}
	type point struct {
		run   int
		value float64
	}
	series := map[Key]map[string][]point{}
	var keys []Key
	for i, r := range runs {
		for k, figs := range r.rows() {
			if series[k] == nil {
				series[k] = map[string][]point{}
				keys = append(keys, k)
			}
			for f, v := range figs {
				series[k][f] = append(series[k][f], point{i, v})
			}
		}
	}
	slices.SortFunc(keys, compareKeys)
	rep := &Report{Runs: runs, Last: o.Last}
	o.Alert = o.Alert.withDefaults()
	type candidate struct {
		series int
		alert  Change
	}
	var cands []candidate
	for _, k := range keys {
		for _, f := range Figures {
			pts := series[k][f]
			if len(pts) == 0 || !slices.Contains(want, f) {
				continue
			}
			values := make([]float64, len(pts))
			for i, p := range pts {
				values[i] = p.value
			}
			cps, err := changepoint.Detect(values, o.Detect)
			if err != nil {
				return nil, fmt.Errorf("%s/%s@%d %s: %w", k.Target, k.Scenario, k.LoadPoint, f, err)
			}
			s := Series{Key: k, Figure: f, Unit: unit[f], Points: len(pts)}
			idx := indexes(cps)
			floor := 0
			if o.Floor != nil {
				fr := o.Floor(k, f)
				for floor < len(pts) && pts[floor].run < fr {
					floor++
				}
			}
			if st, ok := scan(values, idx, floor, higherIsWorse[f], o.Alert.MinRuns); ok {
				run := pts[st.tau].run
				ch := Change{Run: run, RunName: runs[run].Name, Source: runs[run].Source, Before: st.before, After: st.after,
					PValue: st.pvalue, Direction: Slower, Recent: run >= len(runs)-o.Last, Alert: true, RunsAfter: st.runs}
				if st.before != 0 {
					ch.ChangePercent = 100 * (st.after/st.before - 1)
					ch.Magnitude = math.Abs(st.after/st.before - 1)
					if st.after != 0 {
						ch.Magnitude = max(ch.Magnitude, math.Abs(st.before/st.after-1))
					}
				}
				cands = append(cands, candidate{len(rep.Series), ch})
			}
			for _, c := range cps {
				run := pts[c.Index].run
				ch := Change{Run: run, RunName: runs[run].Name, Source: runs[run].Source,
					Before: c.MeanBefore, After: c.MeanAfter, ChangePercent: 100 * c.Change(),
					Magnitude: c.Magnitude(), PValue: c.PValue, Direction: Faster,
					Recent: run >= len(runs)-o.Last}
				if (c.MeanAfter > c.MeanBefore) == higherIsWorse[f] {
					ch.Direction = Slower
				}
				s.ChangePoints = append(s.ChangePoints, ch)
			}
			rep.Series = append(rep.Series, s)
		}
	}
	ps := make([]float64, len(cands))
	for i, c := range cands {
		ps[i] = c.alert.PValue
	}
	for i, ok := range benjaminiHochberg(ps, len(rep.Series), o.Alert.FDR) {
		if !ok {
			continue
		}
		a := cands[i].alert
		rep.Series[cands[i].series].Alert = &a
		rep.Alerts++
		if a.Recent {
			rep.Regressions++
		}
	}
	rep.Regressed = rep.Regressions > 0
	return rep, nil
}

// indexes are the change points' positions in their series, as the alert's scan reads them.
func indexes(cps []changepoint.ChangePoint) []int {
	idx := make([]int, len(cps))
	for i, c := range cps {
		idx[i] = c.Index
	}
	return idx
}
