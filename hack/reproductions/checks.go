package main

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// check is how a finding is decided from the runs; which fields apply depends on Kind.
type check struct {
	// Kind: lower (A's figures below B's), errors (exactly Targets show errors),
	// highest-rps (A serves the most), rps-order (Order by achieved rate, highest first),
	// keepalive-gain (A gains throughput from On to Off while every one of Others loses it).
	Kind     string   `json:"kind"`
	Doc      string   `json:"doc,omitempty"`
	Scenario string   `json:"scenario,omitempty"`
	A        string   `json:"a,omitempty"`
	B        string   `json:"b,omitempty"`
	Figures  []string `json:"figures,omitempty"`
	Targets  []string `json:"targets"`
	Order    []string `json:"order,omitempty"`
	On       string   `json:"keepAliveOn,omitempty"`
	Off      string   `json:"keepAliveOff,omitempty"`
	Others   []string `json:"others,omitempty"`
}

// Verdicts of a finding.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	NotComparable = "not comparable"
	NotRun        = "not run"
)

// decide returns the verdict and the figures behind it.
func decide(c check, runs map[string]*run) (string, string) {
	switch c.Kind {
	case "errors":
		return decideErrors(c, runs)
	case "lower":
		return decideLower(c, runs)
	case "highest-rps":
		r, ok := runs[c.Doc]
		if !ok {
			return NotRun, c.Doc + " has no results"
		}
		var names []string
		for _, row := range topRows(r.BR, c.Scenario) {
			names = append(names, row.Target)
		}
		c.Order = append([]string{c.A}, slices.DeleteFunc(names, func(n string) bool { return n == c.A })...)
		return decideOrder(c, runs, true)
	case "rps-order":
		return decideOrder(c, runs, false)
	case "keepalive-gain":
		return decideKeepAlive(c, runs)
	}
	return NotComparable, "unknown check " + c.Kind
}

// topRows are a scenario's rows at its highest load point.
func topRows(br *benchv1.BenchmarkRun, scenario string) []benchv1.ResultRow {
	var top int32
	for _, r := range br.Status.Results {
		if r.Scenario == scenario && r.LoadPoint > top {
			top = r.LoadPoint
		}
	}
	var out []benchv1.ResultRow
	for _, r := range br.Status.Results {
		if r.Scenario == scenario && r.LoadPoint == top {
			out = append(out, r)
		}
	}
	return out
}

func rowOf(br *benchv1.BenchmarkRun, scenario, target string) (benchv1.ResultRow, bool) {
	for _, r := range topRows(br, scenario) {
		if r.Target == target {
			return r, true
		}
	}
	return benchv1.ResultRow{}, false
}

// usable says why a row cannot decide a finding, or "" when it can.
func usable(r benchv1.ResultRow, ok bool, target string) string {
	switch {
	case !ok:
		return target + " has no row"
	case r.Repetitions == 0:
		return target + " was not measured"
	case !r.Valid:
		return fmt.Sprintf("%s's row is invalid (%s)", target, strings.Join(r.Flags, ","))
	}
	return ""
}

// figure reads the row's latency of record (the wire's when captured): the target's, not k6's.
func figure(r benchv1.ResultRow, name string) int64 {
	rec := results.Record(r)
	switch name {
	case "p50":
		return rec[0]
	case "p90":
		return rec[1]
	case "p99":
		return rec[3]
	case "p99.9":
		return rec[4]
	case "max":
		return rec[5]
	}
	panic("unknown figure " + name)
}

func decideLower(c check, runs map[string]*run) (string, string) {
	r, ok := runs[c.Doc]
	if !ok {
		return NotRun, c.Doc + " has no results"
	}
	a, okA := rowOf(r.BR, c.Scenario, c.A)
	b, okB := rowOf(r.BR, c.Scenario, c.B)
	for _, why := range []string{usable(a, okA, c.A), usable(b, okB, c.B)} {
		if why != "" {
			return NotComparable, why
		}
	}
	var ev []string
	verdict := Reproduced
	for _, f := range c.Figures {
		ev = append(ev, fmt.Sprintf("%s %s %s vs %s %s", f, c.A, results.FormatMicros(figure(a, f)), c.B, results.FormatMicros(figure(b, f))))
		if figure(a, f) >= figure(b, f) {
			verdict = NotReproduced
		}
	}
	return verdict, strings.Join(ev, "; ")
}

func decideErrors(c check, runs map[string]*run) (string, string) {
	r, ok := runs[c.Doc]
	if !ok {
		return NotRun, c.Doc + " has no results"
	}
	verdict := Reproduced
	var ev []string
	for _, row := range r.BR.Status.Results {
		if row.Repetitions == 0 {
			return NotComparable, row.Target + " was not measured"
		}
		want := slices.Contains(c.Targets, row.Target)
		if (row.ErrorRatePPM.Median > 0) != want {
			verdict = NotReproduced
		}
		ev = append(ev, fmt.Sprintf("%s %s errors", row.Target, percent(row.ErrorRatePPM.Median)))
	}
	return verdict, strings.Join(ev, ", ")
}

func decideOrder(c check, runs map[string]*run, firstOnly bool) (string, string) {
	r, ok := runs[c.Doc]
	if !ok {
		return NotRun, c.Doc + " has no results"
	}
	var rates []int64
	var ev []string
	for _, t := range c.Order {
		row, ok := rowOf(r.BR, c.Scenario, t)
		if why := usable(row, ok, t); why != "" {
			return NotComparable, why
		}
		rates = append(rates, row.AchievedMilliRPS.Median)
		ev = append(ev, fmt.Sprintf("%s %s req/s", t, rps(row.AchievedMilliRPS.Median)))
	}
	for i := 1; i < len(rates); i++ {
		if (firstOnly && rates[0] <= rates[i]) || (!firstOnly && rates[i-1] <= rates[i]) {
			return NotReproduced, strings.Join(ev, ", ")
		}
	}
	return Reproduced, strings.Join(ev, ", ")
}

func decideKeepAlive(c check, runs map[string]*run) (string, string) {
	on, okOn := runs[c.On]
	off, okOff := runs[c.Off]
	if !okOn || !okOff {
		return NotRun, "keep-alive on or off has no results"
	}
	verdict := Reproduced
	var ev []string
	for _, t := range append([]string{c.A}, c.Others...) {
		a, okA := rowOf(on.BR, c.Scenario, t)
		b, okB := rowOf(off.BR, c.Scenario, t)
		for _, why := range []string{usable(a, okA, t+" (keep-alive on)"), usable(b, okB, t+" (keep-alive off)")} {
			if why != "" {
				return NotComparable, why
			}
		}
		gains := b.AchievedMilliRPS.Median > a.AchievedMilliRPS.Median
		if gains != (t == c.A) {
			verdict = NotReproduced
		}
		ev = append(ev, fmt.Sprintf("%s %s→%s req/s", t, rps(a.AchievedMilliRPS.Median), rps(b.AchievedMilliRPS.Median)))
	}
	return verdict, strings.Join(ev, ", ")
}

func rps(milli int64) string { return fmt.Sprintf("%.0f", float64(milli)/1000) }

func percent(ppm int64) string {
	if ppm == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.3g%%", float64(ppm)/1e4)
}
