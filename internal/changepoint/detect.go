package changepoint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Options tune the detection; the zero value of a field takes its default.
type Options struct {
	// MaxPValue is the significance level a candidate's permutation p-value must not
	// exceed (default 0.01).
	MaxPValue float64
	// Permutations is the number of shuffles per candidate (default 999). The p-value is
	// an estimate: a true p of 0.004 (4 runs against 8, perfectly split) read from 199
	// shuffles exceeds 0.01 one time in five; from 999, about one in a hundred.
	Permutations int
	// MinMagnitude is the smallest relative change kept, as Otava's min_magnitude: the
	// larger of |after/before - 1| and |before/after - 1| (0: keep every significant one).
	MinMagnitude float64
	// Seed seeds the permutations' generator (0 is a fixed seed too).
	Seed uint64
}

// Defaults.
const (
	DefaultMaxPValue    = 0.01
	DefaultPermutations = 999
	// MaxPoints bounds the series: the cost is O(Permutations · N²) per change point.
	MaxPoints = 1000
)

func (o Options) withDefaults() Options {
	if o.MaxPValue == 0 {
		o.MaxPValue = DefaultMaxPValue
	}
	if o.Permutations == 0 {
		o.Permutations = DefaultPermutations
	}
	return o
}

// ChangePoint is where a new level starts.
type ChangePoint struct {
	// Index is the first point of the new level.
	Index int `json:"index"`
	// QHat is the statistic of the split when it was found.
	QHat float64 `json:"qhat"`
	// PValue is its permutation p-value: (1 + shuffles with a q̂ at least as high) /
	// (1 + shuffles), Matteson & James's estimate.
	PValue float64 `json:"pvalue"`
	// Mean and standard deviation of the segments either side (up to the neighbouring
	// change points).
	MeanBefore   float64 `json:"meanBefore"`
	MeanAfter    float64 `json:"meanAfter"`
	StdDevBefore float64 `json:"stdDevBefore"`
	StdDevAfter  float64 `json:"stdDevAfter"`
}

// Change is the relative change of the mean, after/before - 1 (0 when before is 0).
func (c ChangePoint) Change() float64 {
	if c.MeanBefore == 0 {
		return 0
	}
	return c.MeanAfter/c.MeanBefore - 1
}

// Magnitude is Otava's: the larger of the forward and backward relative changes, so a
// halving and a doubling weigh the same.
func (c ChangePoint) Magnitude() float64 {
	back := 0.0
	if c.MeanAfter != 0 {
		back = c.MeanBefore/c.MeanAfter - 1
	}
	return math.Max(math.Abs(c.Change()), math.Abs(back))
}

// Detect returns the change points of series in index order. A series of fewer than 3
// points has none; one longer than MaxPoints or holding a NaN or an infinity is an error.
func Detect(series []float64, o Options) ([]ChangePoint, error) {
	o = o.withDefaults()
	switch {
	case len(series) > MaxPoints:
		return nil, fmt.Errorf("%d points: at most %d", len(series), MaxPoints)
	case o.MaxPValue <= 0 || o.MaxPValue >= 1:
		return nil, fmt.Errorf("max p-value %v: not between 0 and 1", o.MaxPValue)
	case o.Permutations < 0 || o.MinMagnitude < 0:
		return nil, fmt.Errorf("permutations %d, min magnitude %v: negative", o.Permutations, o.MinMagnitude)
	}
	for i, v := range series {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("point %d is %v", i, v)
		}
	}
	if len(series) < 3 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	var s qhatScratch
	var found []ChangePoint
	var bounds []int // accepted change points, sorted
	shuffled := make([]float64, len(series))
	for {
		segs := segments(bounds, len(series))
		cand, ok := bestOver(&s, series, segs)
		if !ok {
			break
		}
		// Shuffle within each segment: the null hypothesis is that no further change
		// exists, so points are exchangeable inside the segments found so far.
		// Once more shuffles beat the candidate than MaxPValue allows, it fails whatever the
		// rest say: stopping there gives the same answer, and on a series with no further
		// change (most of them) costs tens of shuffles instead of Permutations.
		// (The test is the one below, so the two cannot disagree by a rounding.)
		higher := 0
		for range o.Permutations {
			if float64(1+higher)/float64(1+o.Permutations) > o.MaxPValue {
				break
			}
			copy(shuffled, series)
			for _, g := range segs {
				seg := shuffled[g[0]:g[1]]
				rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			}
			// A shuffle that reproduces the same partition must count as "at least as
			// high" although its sums were added in another order.
			if c, _ := bestOver(&s, shuffled, segs); c.qhat >= cand.qhat-1e-9*math.Abs(cand.qhat) {
				higher++
			}
		}
		p := float64(1+higher) / float64(1+o.Permutations)
		if p > o.MaxPValue {
			break
		}
		found = append(found, ChangePoint{Index: cand.index, QHat: cand.qhat, PValue: p})
		bounds = append(bounds, cand.index)
		slices.Sort(bounds)
	}
	slices.SortFunc(found, func(a, b ChangePoint) int { return a.Index - b.Index })
	return merge(found, series, o.MinMagnitude), nil
}

// segments are the [start, end) ranges between the accepted change points.
func segments(bounds []int, n int) [][2]int {
	out := make([][2]int, 0, len(bounds)+1)
	start := 0
	for _, b := range bounds {
		out = append(out, [2]int{start, b})
		start = b
	}
	return append(out, [2]int{start, n})
}

// bestOver is the best candidate over all segments; the first wins a tie.
func bestOver(s *qhatScratch, series []float64, segs [][2]int) (candidate, bool) {
	best, ok := candidate{qhat: math.Inf(-1)}, false
	for _, g := range segs {
		tau, q, segOK := s.best(series[g[0]:g[1]])
		if segOK && q > best.qhat {
			best, ok = candidate{index: g[0] + tau, qhat: q}, true
		}
	}
	return best, ok
}

// merge fills in each change point's sides and, as Otava's merge step, drops the one of
// least magnitude while it is below min, recomputing its neighbours' sides each time.
func merge(cps []ChangePoint, series []float64, min float64) []ChangePoint {
	for {
		fill(cps, series)
		weakest := -1
		for i, c := range cps {
			if c.Magnitude() < min && (weakest < 0 || c.Magnitude() < cps[weakest].Magnitude()) {
				weakest = i
			}
		}
		if weakest < 0 {
			return cps
		}
		cps = slices.Delete(cps, weakest, weakest+1)
	}
}

func fill(cps []ChangePoint, series []float64) {
	for i := range cps {
		lo, hi := 0, len(series)
		if i > 0 {
			lo = cps[i-1].Index
		}
		if i+1 < len(cps) {
			hi = cps[i+1].Index
		}
		c := &cps[i]
		c.MeanBefore, c.StdDevBefore = meanStd(series[lo:c.Index])
		c.MeanAfter, c.StdDevAfter = meanStd(series[c.Index:hi])
	}
}

// meanStd is the mean and the population standard deviation (numpy's default, as Otava).
func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)))
}
