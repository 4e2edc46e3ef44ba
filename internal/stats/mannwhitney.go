package stats

import (
	"errors"
	"math"
	"slices"
)

// ErrSampleSize: a test needs at least one value on each side.
var ErrSampleSize = errors.New("stats: each sample needs at least one value")

// MaxExact is the largest combined sample size the exact distributions are computed for;
// beyond it the normal approximation with tie and continuity corrections is used (the
// exact tables would cost O(n^4) memory for nothing: the approximation is good there).
const MaxExact = 100

// UTest is the outcome of a two-sided Mann-Whitney U test of x against y.
type UTest struct {
	N1, N2 int
	// U is the statistic of x: the number of pairs (x_i, y_j) with x_i > y_j, ties
	// counting one half. U = N1*N2/2 when neither sample tends to be larger.
	U float64
	// P is the two-sided p-value: the chance, were both samples from one distribution,
	// of a U at least this far from N1*N2/2. 1 when every value is equal.
	P float64
	// Exact says the p-value comes from the exact permutation distribution (given the
	// ties), not the normal approximation.
	Exact bool
}

// MannWhitney tests whether x and y come from one distribution against the alternative
// that one tends to be larger. With ties, the exact distribution is the permutation
// distribution conditional on the tie pattern, as benchstat computes it (go-moremath's
// UDist). The p-value is the probability of a U at least as far from its mean as the one
// seen, both tails summed: without ties the distribution is symmetric and this is
// benchstat's twice-the-smaller-tail; with ties it can be skewed, and summing both tails
// keeps the p-value the same whichever sample is named first (benchstat's is not).
func MannWhitney(x, y []float64) (UTest, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{}, ErrSampleSize
	}
	groups, r1x2 := rankGroups(x, y)
	// U1 = R1 - n1(n1+1)/2, kept doubled so midranks stay integers.
	u1x2 := r1x2 - n1*(n1+1)
	t := UTest{N1: n1, N2: n2, U: float64(u1x2) / 2, P: 1}
	if len(groups) == 1 || 2*u1x2 == 2*n1*n2 { // all equal, or U exactly at its mean
		t.Exact = n1+n2 <= MaxExact
		return t, nil
	}
	if n1+n2 <= MaxExact {
		t.Exact = true
		if len(groups) == n1+n2 { // no ties: the classic table
			t.P = min(1, noTiesTwoSided(n1, n2, u1x2))
		} else {
			t.P = min(1, exactTwoSided(n1, n2, groups, u1x2))
		}
		return t, nil
	}
	t.P = normalP(n1, n2, groups, float64(u1x2)/2)
	return t, nil
}

// rankGroups merges the samples and returns the sizes of the runs of equal values (tie
// groups) in ascending order, with how many of each came from x, and x's rank sum doubled.
func rankGroups(x, y []float64) (groups []tieGroup, r1x2 int) {
	type item struct {
		v   float64
		inX bool
	}
	all := make([]item, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, item{v, true})
	}
	for _, v := range y {
		all = append(all, item{v, false})
	}
	slices.SortFunc(all, func(a, b item) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	for i := 0; i < len(all); {
		j, fromX := i, 0
		for ; j < len(all) && all[j].v == all[i].v; j++ {
			if all[j].inX {
				fromX++
			}
		}
		// Ranks i+1..j share the midrank (i+1+j)/2; doubled: i+1+j.
		r1x2 += fromX * (i + 1 + j)
		groups = append(groups, tieGroup{size: j - i, fromX: fromX, midrankX2: i + 1 + j})
		i = j
	}
	return groups, r1x2
}

type tieGroup struct {
	size, fromX int
	midrankX2   int // the group's midrank, doubled
}

// exactTwoSided is P(|U - n1*n2/2| >= |u - n1*n2/2|) for the U of a sample of n1 drawn
// at random (without replacement) from the n1+n2 ranks, given the tie groups (u2 is U
// doubled). Every choice of n1 positions is equally likely, and a choice's U depends only
// on how many it takes from each group, so a dynamic programme over the groups counts the
// choices for each (taken, doubled rank sum).
func exactTwoSided(n1, n2 int, groups []tieGroup, u2 int) float64 {
	n := n1 + n2
	maxSum := n * (n + 1) // doubled sum of all ranks
	// ways[k][s]: ways to take k items from the groups seen so far with doubled rank sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	seen := 0
	for _, g := range groups {
		seen += g.size
		reach := seen * (seen + 1)            // no choice from the first groups sums higher
		for k := min(n1, seen); k >= 0; k-- { // descending: each group is used once
			for s := reach; s >= 0; s-- {
				total := 0.0
				for c := 0; c <= min(g.size, k); c++ {
					ps := s - c*g.midrankX2
					if ps < 0 {
						break
					}
					if w := ways[k-c][ps]; w != 0 {
						total += w * binom(g.size, c)
					}
				}
				ways[k][s] = total
			}
		}
	}
	mean2 := n1 * n2 // the mean of U, doubled
	far := abs(u2 - mean2)
	tail := 0.0
	for s, w := range ways[n1] {
		if w != 0 && abs(s-n1*(n1+1)-mean2) >= far {
			tail += w
		}
	}
	return tail / binom(n, n1)
}

// noTiesTwoSided is exactTwoSided for samples without ties, from the null distribution of U.
func noTiesTwoSided(n1, n2, u2 int) float64 {
	far := abs(u2 - n1*n2)
	tail := 0.0
	for u, p := range uPMF(n1, n2) {
		if abs(2*u-n1*n2) >= far {
			tail += p
		}
	}
	return tail
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// normalP is the two-sided p-value of U by the normal approximation, with the tie
// correction of the variance and a continuity correction of 1/2.
func normalP(n1, n2 int, groups []tieGroup, u float64) float64 {
	n := float64(n1 + n2)
	ties := 0.0
	for _, g := range groups {
		t := float64(g.size)
		ties += t*t*t - t
	}
	sd := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - ties/(n*(n-1))))
	d := math.Abs(u-float64(n1*n2)/2) - 0.5
	if d < 0 {
		return 1
	}
	return min(1, math.Erfc(d/sd/math.Sqrt2))
}

// binom is the binomial coefficient C(n, k) as a float (exact up to 2^53: n <= MaxExact
// choices of at most 20 a side stay far below it; larger ones are correctly rounded ratios).
func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}
