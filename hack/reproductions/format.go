package main

import (
	"fmt"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// How a verdict's reason prints its figures.

// describe prints a pair as measured, with what the claim needs of it: "go 6588 vs apostol
// 5896 req/s: 1.12x, needs ≥ 1.4x".
func describe(c check, p pair) string {
	need := fmt.Sprintf("needs ≥ %.3g×", p.k)
	switch {
	case p.kMax > 0 && p.k == 1:
		need = fmt.Sprintf("needs > 1× and ≤ %.3g×", p.kMax)
	case p.kMax > 0:
		need = fmt.Sprintf("needs %.3g×–%.3g×", p.k, p.kMax)
	case p.tol > 0:
		need = fmt.Sprintf("needs within %.0f%%", p.tol*100)
	case p.k == 1:
		need = "needs > 1×"
	}
	got := "–"
	if p.small.stat.Median > 0 {
		got = fmt.Sprintf("%.2f×", float64(p.big.stat.Median)/float64(p.small.stat.Median))
	}
	return fmt.Sprintf("%s %s%s vs %s %s%s: %s, %s", p.big.who, spread(c.Metric, p.big), perWindow(p.big), p.small.who, spread(c.Metric, p.small), perWindow(p.small), got, need)
}

// perWindow states how many requests a latency figure rests on: a p99 of 600 requests is
// its 6 slowest.
func perWindow(v value) string {
	if v.requests == "" {
		return ""
	}
	return " of " + v.requests + " requests per window"
}

// spread prints a figure as median, with its min–max over the repetitions when there are
// several, and "≥" when it is a lower bound.
func spread(metric string, v value) string {
	s := format(metric, v.stat.Median)
	if v.n > 1 && v.stat.Min != v.stat.Max {
		lo, hi := format(metric, v.stat.Min), format(metric, v.stat.Max)
		if i := strings.Index(hi, " "); i > 0 { // the unit once: "900 (880–920 req/s)"
			unit := hi[i:]
			s, lo = strings.TrimSuffix(s, unit), strings.TrimSuffix(lo, unit)
		}
		s += " (" + lo + "–" + hi + ")"
	}
	if v.atLeast {
		s = "≥" + s
	}
	return s
}

func format(metric string, x int64) string {
	switch metric {
	case "rps":
		return rps(x) + " req/s"
	case "cpu":
		return units.FormatMillicores(x) + " cores"
	case "memory", "memoryPeak":
		return units.FormatBytes(x)
	case "errors":
		return units.FormatPPM(x) + " errors"
	}
	return results.FormatMicros(x)
}

func rps(milli int64) string {
	x := float64(milli) / 1000
	if x < 100 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}
