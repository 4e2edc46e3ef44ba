// Package results turns measurements into result rows: medians and spread over
// repetitions, validity flags, SLO verdicts and cost. The operator and the local mode both
// call it, so a figure is computed in one place only.
package results

import (
	"math"
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// minCISamples is the smallest n for which the order statistics of the sample give a 95%
// interval of the median (benchstat's method: with n = 6, P(min <= median <= max) = 0.969).
const minCISamples = 6

// Summarize is a figure's median, min and max over the repetitions, and the 95% confidence
// interval of the median when n >= 6. An even n takes the lower middle value, so the
// median is always a value that was measured.
func Summarize(values []int64) benchv1.Stat {
	if len(values) == 0 {
		return benchv1.Stat{}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	n := len(v)
	st := benchv1.Stat{Median: v[(n-1)/2], Min: v[0], Max: v[n-1]}
	if n >= minCISamples {
		lo, hi := medianCI(n, 0.95)
		st.CILow, st.CIHigh = &v[lo], &v[hi]
	}
	return st
}

// medianCI returns the 0-based order statistics (lo, hi) bounding the median with at least
// the given confidence: [x(k), x(n-1-k)] covers it with probability 1 - 2·P(Binomial(n, ½) <= k),
// so k is the largest index keeping that >= confidence. Distribution-free, as benchstat's is.
func medianCI(n int, confidence float64) (lo, hi int) {
	alpha := 1 - confidence
	tail, k := 0.0, 0
	for i := 0; i < n/2; i++ {
		tail += binomial(n, i) / math.Pow(2, float64(n))
		if 2*tail > alpha {
			break
		}
		k = i
	}
	return k, n - 1 - k
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
