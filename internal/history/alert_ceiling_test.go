package history

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	mstats "github.com/aclements/go-moremath/stats"
)

// TestAlertCeiling measures what the alert pays for reading the noise from the runs. The
// same scan runs four ways: told the old level's mean and scale and that the noise is
// independent (an oracle), told the scale and independence, told only independence, and as
// the operator runs it (every one read from the runs). Each gets the boundary that suits
// it: for every reference K of a grid, the smallest decision interval H that keeps its goal
// cases at 4% at most (the stable histories and blips; for the ways told the noise is
// independent, only the independent ones), calibrated on one set of histories, so that
// another set stays within the goal's 5%; the K that finds the most 10% steps there is
// kept, and the rates are read on another set. It prints the table in docs/history.md.
// GAUNTLET_ALERT_CEILING=1 go test ./internal/history -run TestAlertCeiling -v -timeout 60m
// (GAUNTLET_ALERT_HISTORIES sets how many a case and set, 400 by default.)
func TestAlertCeiling(t *testing.T) {
	if os.Getenv("GAUNTLET_ALERT_CEILING") == "" {
		t.Skip("set GAUNTLET_ALERT_CEILING=1: minutes of CPU")
	}
	histories, offset := alertHistories(t)
	if os.Getenv("GAUNTLET_ALERT_HISTORIES") == "" {
		histories = 400
	}
	cases := rateCases()
	tenPct := slices.IndexFunc(cases, func(c alertCase) bool { return c.name == "10% step, independent" })
	// Two sets of histories, apart from TestAlertRates' seeds and from each other.
	sets := [2][][][]analysis{}
	for s := range sets {
		sets[s] = make([][][]analysis, len(cases))
		for ci, c := range cases {
			for h := range histories {
				seed := uint64(1000*ci+h) + offset + uint64(s+2)*1_000_000
				sets[s][ci] = append(sets[s][ci], c.analyses(t, seed))
			}
		}
	}
	ks := []float64{0.5, 0.65, 0.8, 0.95, 1.1, 1.3}
	// excess is, per K, how far the history's furthest analysis went over the boundary's
	// reference line: it alarms at H where excess ≥ H (a lone series alerts where a split's
	// tail is within the boundary's level for its runs).
	excess := func(tu tuning, as []analysis) []float64 {
		out := make([]float64, len(ks))
		for i := range out {
			out[i] = math.Inf(-1)
		}
		for _, a := range as {
			tu.splits(a.x, a.cps, 0, true, DefaultMinRuns, func(s split) {
				q := s.z
				if s.df != 0 {
					if p := s.tail(); p > 0 {
						q = -mstats.StdNormal.InvCDF(p)
					}
				}
				n := float64(s.used)
				for i, k := range ks {
					out[i] = max(out[i], q*math.Sqrt(n)-n*k)
				}
			})
		}
		return out
	}
	// The operator's own way, at its own boundary, decides as Analyze does.
	for ci := range cases {
		for h := range min(histories, 10) {
			as := sets[0][ci][h]
			e := excess(defaultTuning, as)[slices.Index(ks, defaultTuning.cusumK)]
			if got, want := e >= defaultTuning.cusumH, alarmed(t, as[len(as)-1].x, cases[ci].from, cases[ci].to); got != want {
				t.Fatalf("%s, history %d: the excess says %v, Analyze %v", cases[ci].name, h, got, want)
			}
		}
	}
	cv := 0.05 // noisy's: its mean is 1000, so its deviation is 50
	ways := []struct {
		name string
		tu   tuning
	}{
		{"mean and scale known, independent", tuning{knownMean: 1000, knownScale: 1000 * cv, independent: true}},
		{"scale known, independent", tuning{knownScale: 1000 * cv, independent: true}},
		{"both read, independent", tuning{independent: true}},
		{"both read, φ read (the operator's)", tuning{}},
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "THE ALERT\tK\tH\tFALSE ALARMS: INDEPENDENT, BLIPS\tFALSE ALARMS: AR(1)\t5% STEP\t10% STEP\t20% STEP")
	for _, w := range ways {
		tu := defaultTuning
		tu.knownMean, tu.knownScale, tu.independent = w.tu.knownMean, w.tu.knownScale, w.tu.independent
		var ex [2][][][]float64 // set, case, history, K
		for s := range sets {
			ex[s] = make([][][]float64, len(cases))
			for ci := range cases {
				for _, as := range sets[s][ci] {
					ex[s][ci] = append(ex[s][ci], excess(tu, as))
				}
			}
		}
		rate := func(s, ci, ki int, h float64) float64 {
			n := 0
			for _, e := range ex[s][ci] {
				if e[ki] >= h {
					n++
				}
			}
			return float64(n) / float64(histories)
		}
		bestK, bestH, best := 0, 0.0, -1.0
		for ki := range ks {
			h := math.Inf(-1) // the smallest H that holds every goal case at 4%
			for ci, c := range cases {
				if c.goal != "≤ 5%" || tu.independent && c.phi != 0 {
					continue
				}
				e := make([]float64, 0, histories)
				for _, x := range ex[0][ci] {
					e = append(e, x[ki])
				}
				slices.Sort(e)
				h = max(h, math.Nextafter(e[histories-histories/25-1], math.Inf(1)))
			}
			if r := rate(0, tenPct, ki, h); r > best {
				bestK, bestH, best = ki, h, r
			}
		}
		worst := [2]float64{} // the held-out goal cases' worst rate: independent and blips, AR(1)
		steps := map[float64]float64{}
		for ci, c := range cases {
			r := rate(1, ci, bestK, bestH)
			switch {
			case c.goal == "≤ 5%" && c.phi == 0:
				worst[0] = max(worst[0], r)
			case c.goal == "≤ 5%":
				worst[1] = max(worst[1], r)
			case c.phi == 0:
				steps[c.step] = r
			}
		}
		line := fmt.Sprintf("%s\t%.2f\t%.2f\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%", w.name, ks[bestK], bestH,
			100*worst[0], 100*worst[1], 100*steps[0.05], 100*steps[0.10], 100*steps[0.20])
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	fmt.Fprintf(os.Stdout, "%d histories a case, calibrated on one set and read on another\n%s", histories, b.String())
}
