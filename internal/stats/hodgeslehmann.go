package stats

import (
	"math"
	"slices"
	"sync"
)

// Shift is the Hodges-Lehmann estimate of how far y lies above x, with its confidence
// interval.
type Shift struct {
	// Estimate is the median of the N1*N2 differences y_j - x_i.
	Estimate float64
	// Low and High bound the interval; infinite when the samples are too small to reach
	// the confidence asked for (n = m = 3 cannot reach 95%: P(U = 0) alone is 5%).
	Low, High float64
	// Confidence is the interval's actual coverage, at least the one asked for: the
	// discrete U distribution rarely hits it exactly (n = m = 4 gives 97.1% for 95%).
	Confidence float64
}

// HodgesLehmann estimates the location shift of y against x and its confidence interval,
// the interval that inverts the Mann-Whitney test (Lehmann 1975; Hollander & Wolfe, ch. 4):
// with the differences sorted, [D(c+1), D(N1*N2-c)] where c is the largest integer with
// P(U <= c) <= (1-confidence)/2 under the exact null distribution without ties. R's
// wilcox.test(conf.int=TRUE) and scipy compute the same.
func HodgesLehmann(x, y []float64, confidence float64) (Shift, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return Shift{}, ErrSampleSize
	}
	d := make([]float64, 0, n1*n2)
	for _, xi := range x {
		for _, yj := range y {
			d = append(d, yj-xi)
		}
	}
	slices.Sort(d)
	s := Shift{Estimate: median(d), Low: math.Inf(-1), High: math.Inf(1), Confidence: 1}
	c, cover := criticalU(n1, n2, (1-confidence)/2)
	if c >= 0 {
		s.Low, s.High, s.Confidence = d[c], d[len(d)-1-c], cover
	}
	return s, nil
}

// criticalU is the largest c with P(U <= c) <= tail for samples of n1 and n2 without
// ties, and the two-sided coverage 1 - 2 P(U <= c) of the interval it gives; c = -1 when
// even P(U = 0) exceeds the tail.
func criticalU(n1, n2 int, tail float64) (c int, coverage float64) {
	pmf := uPMF(n1, n2)
	c, cum := -1, 0.0
	for u, p := range pmf {
		if cum+p > tail*(1+1e-12) {
			break
		}
		cum += p
		c = u
	}
	return c, 1 - 2*cum
}

// uPMF is the exact null distribution of U for samples of n1 and n2 without ties, P(U = u)
// for u = 0..n1*n2, by the recurrence on the largest value's sample (Mann & Whitney 1947):
// f(u; n1, n2) = n1/(n1+n2) f(u-n2; n1-1, n2) + n2/(n1+n2) f(u; n1, n2-1).
func uPMF(n1, n2 int) []float64 {
	key := [2]int{n1, n2}
	if p, ok := pmfCache.Load(key); ok {
		return p.([]float64)
	}
	p := computeUPMF(n1, n2)
	pmfCache.Store(key, p)
	return p
}

// pmfCache holds the distributions computed: a run compares many rows of the same sizes.
var pmfCache sync.Map

func computeUPMF(n1, n2 int) []float64 {
	// counts[a][b] would be the general table; a rolling row over b suffices.
	prev := make([][]float64, n2+1) // prev[b]: distribution for (a-1, b)
	for b := range prev {
		prev[b] = []float64{1} // a = 0: U = 0 surely
	}
	for a := 1; a <= n1; a++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1} // b = 0: U = 0 surely
		for b := 1; b <= n2; b++ {
			f := make([]float64, a*b+1)
			wa, wb := float64(a)/float64(a+b), float64(b)/float64(a+b)
			for u := range f {
				// The largest value is from x (prob a/(a+b)): it beats all b y's.
				if u-b >= 0 && u-b < len(prev[b]) {
					f[u] += wa * prev[b][u-b]
				}
				if u < len(cur[b-1]) {
					f[u] += wb * cur[b-1][u]
				}
			}
			cur[b] = f
		}
		prev = cur
	}
	return prev[n2]
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
