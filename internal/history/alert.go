package history

import (
	"math"
	"slices"
	"sort"

	mstats "github.com/aclements/go-moremath/stats"
)

// The alert. E-Divisive finds where a series moved; whether that is worth waking someone is
// decided by a separate test, because the permutation test alone assumes independent runs
// (night-to-night drift is not: AR(1) noise with phi 0.5 gave change points in a quarter of
// stable histories), tests every row × figure at the same level, and a change point two
// runs from the end is as likely a blip as a step. A series alerts when
//   - a step to a worse level starts within the newest MaxAge runs and has lasted MinRuns
//     runs, its first and newest runs both nearer the new level than the old; runs further
//     than outlier scales from the old level are left out of the new one unless MinRuns of
//     them stand beyond half that (two wild runs are not a level, nor do they lift the
//     runs beside them into one);
//   - its shift crosses a CUSUM boundary under AR(1) noise: the new level's mean (runs
//     clipped at stepClip scales from the old level), in standard errors of the difference of
//     the two means with the variance inflated by (1+φ)/(1-φ) (φ the old level's lag-1
//     autocorrelation, bias-corrected and raised by phiMargin standard errors) and divided by
//     1+shortLevel/n for an old level of n runs, has a Student t tail (the old level's scale
//     is read from its own runs) below the boundary's level for a window of that many runs:
//     the level a CUSUM with reference cusumK and decision interval cusumH spends there,
//     which favours a step that has lasted a few runs over a longer, smaller one;
//   - those p-values (the best split's tail over its level, times the boundary's total
//     level: a weighted Bonferroni over the splits) pass Benjamini-Hochberg at FDR across
//     every series analysed.
// The analysis runs after every run and an alert is kept until triaged or undone, so FDR is
// per analysis and small. Rates from `go test ./internal/history -run TestAlertRates -v`
// are in docs/history.md: the stable histories' false alarms hold at 5% and a 10% step at 5%
// noise is found within five runs about three times in five; TestAlertCeiling shows that
// only an alert told the noise's scale finds 85%, and docs/history.md says why.

// Alert defaults: DefaultFDR is the boundary's total level over the splits scanned (about
// 0.008), so a lone series alerts exactly where it crosses the boundary.
const DefaultMinRuns = 3

var DefaultFDR = defaultTuning.totalLevel()

// AlertOptions tune the alert; the zero value of a field takes its default.
type AlertOptions struct {
	// MinRuns is how many runs must stand at the new level before it alerts.
	MinRuns int
	// FDR is the Benjamini-Hochberg false discovery rate across the series.
	FDR float64
}

func (o AlertOptions) withDefaults() AlertOptions {
	if o.MinRuns <= 0 {
		o.MinRuns = DefaultMinRuns
	}
	if o.FDR <= 0 {
		o.FDR = DefaultFDR
	}
	return o
}

// Alert tuning that is not an option: the newest MaxAge runs are scanned for the start of a
// new level, which needs MinBefore runs of the old level before it.
const (
	MaxAge    = 10
	MinBefore = 8
)

// tuning is the alert's statistics. clip: the old level leaves out runs further than this
// many median absolute deviations; stepClip: a run of the new level counts at most this many
// scales from the old one; phiMargin: standard errors added to φ's estimate; shortLevel: how
// much an old level of few runs is discounted (a short level, as after a change point found
// in drifting noise, underestimates both its scale and φ, beyond what its t tail allows: it
// gave the AR(1) histories most of their false alarms); cusumK and cusumH: the boundary's
// reference and decision interval, in standard errors; the other fields are described where
// they are declared. The defaults
// were chosen on 1,000 seeded histories a case, other than TestAlertRates' default ones:
// every stable case and both blips at about 4% at most, then the most 10% steps
// (docs/history.md); TestAlertSweep measures others.
type tuning struct {
	clip, stepClip, phiMargin, shortLevel, cusumK, cusumH float64
	// maxAge and minBefore: MaxAge and MinBefore; exact: the variance of the two means'
	// difference under AR(1) for the windows' own lengths (both adjacent), not the long-run
	// inflation (1+φ)/(1-φ), which overstates it for a window of a few runs.
	maxAge, minBefore int
	exact             bool
	// outlier: a run of the new level further than this many scales from the old one is left
	// out, unless MinRuns runs stand beyond half that (0: none is).
	outlier float64
	// knownMean, knownScale and independent stand in for what the alert reads from the old
	// level (0 and false: read it): TestAlertCeiling measures what reading them costs.
	knownMean, knownScale float64
	independent           bool
}

var defaultTuning = tuning{clip: 3.0, stepClip: 3.0, phiMargin: 0.75, shortLevel: 2.0, cusumK: 0.95, cusumH: 2.0,
	maxAge: MaxAge, minBefore: MinBefore, outlier: 5}

// boundary is the one-sided level the boundary spends on a window of na runs at the new
// level: the tail of a standard normal beyond (cusumH + na·cusumK)/√na.
func (tu tuning) boundary(na int) float64 {
	n := float64(na)
	return 0.5 * math.Erfc((tu.cusumH+n*tu.cusumK)/math.Sqrt(n)/math.Sqrt2)
}

// totalLevel is the boundary's total level over every window the scan may try.
func (tu tuning) totalLevel() float64 {
	sum := 0.0
	for na := DefaultMinRuns; na <= tu.maxAge; na++ {
		sum += tu.boundary(na)
	}
	return sum
}

// step is the alert's best split of a series: the new level starts at run tau.
type step struct {
	tau           int
	before, after float64 // mean levels
	pvalue        float64 // the split's tail over its boundary level, times totalLevel
	runs          int     // runs since tau
}

// split is one split the alert tests: the new level starts at run tau and has lasted runs
// runs, of which used count (the others are outliers); z is the shift in standard errors
// and df the degrees of freedom of its Student t tail (0: the scale is known, a normal tail).
type split struct {
	tau, runs, used int
	before, after   float64
	z               float64
	df              int
}

// tail is the split's one-sided p-value: only a worse level alerts.
func (s split) tail() float64 {
	if s.df == 0 {
		return 0.5 * math.Erfc(s.z/math.Sqrt2)
	}
	return 1 - mstats.TDist{V: float64(s.df)}.CDF(s.z)
}

// scan looks for a step to a worse level (up when higherIsWorse) that starts within the
// newest MaxAge runs of x and has lasted MinRuns runs; cps are E-Divisive's change points,
// so the old level is read from the last one far enough before the split, and never from
// before floor. ok is false when no split qualifies.
func scan(x []float64, cps []int, floor int, higherIsWorse bool, minRuns int) (step, bool) {
	return defaultTuning.scan(x, cps, floor, higherIsWorse, minRuns)
}

func (tu tuning) scan(x []float64, cps []int, floor int, higherIsWorse bool, minRuns int) (best step, ok bool) {
	ratio := math.Inf(1) // the best split's tail over its boundary level
	tu.splits(x, cps, floor, higherIsWorse, minRuns, func(s split) {
		if r := s.tail() / tu.boundary(s.used); r < ratio {
			ratio = r
			best = step{tau: s.tau, before: s.before, after: s.after, runs: s.runs}
			ok = true
		}
	})
	best.pvalue = min(1, ratio*tu.totalLevel())
	return best, ok
}

// splits calls f with every split of x that qualifies: its new level starts within the
// newest maxAge runs, after at least minBefore runs of the old level, has lasted minRuns
// runs once its outliers are left out, and persisted.
func (tu tuning) splits(x []float64, cps []int, floor int, higherIsWorse bool, minRuns int, f func(split)) {
	n := len(x)
	first := max(floor+tu.minBefore, n-tu.maxAge)
	last := n - minRuns
	sign := 1.0
	if !higherIsWorse {
		sign = -1
	}
	for tau := first; tau <= last; tau++ {
		lo := floor
		for _, c := range cps {
			if c <= tau-tu.minBefore && c > lo {
				lo = c
			}
		}
		before := x[lo:tau]
		mb, scale, phi, kept := tu.level(before)
		if tu.knownMean != 0 {
			mb = tu.knownMean
		}
		if tu.knownScale != 0 {
			scale = tu.knownScale
		}
		if tu.independent {
			phi = 0
		}
		if scale == 0 {
			scale = math.Abs(mb) * 1e-6 // a constant series: any real move is a step
		}
		if scale == 0 {
			continue
		}
		d := make([]float64, 0, n-tau) // the new level's runs in scales from the old, worse positive
		for _, v := range x[tau:] {
			d = append(d, sign*(v-mb)/scale)
		}
		d = tu.withoutOutliers(d, minRuns)
		if len(d) < minRuns {
			continue
		}
		// A run counts at most stepClip scales from the old level (one wild run is not a step),
		// unless every run of the window stands further: then as far as the nearest of them,
		// so a large step over a steady series is not capped to a small one.
		bound := max(slices.Min(d), tu.stepClip)
		sum, raw := 0.0, 0.0
		for _, v := range d {
			sum += min(max(v, -bound), bound)
			raw += v
		}
		shift := sum / float64(len(d)) // in scales, worse is positive
		// Persistence at both ends: the first and the newest run of the new level stand
		// nearer to it (unclipped) than to the old one, so two wild runs and a normal one
		// either side are not a step.
		mid := raw / float64(len(d)) / 2
		if shift <= 0 || d[0] < mid || d[len(d)-1] < mid {
			continue
		}
		v := (1/float64(len(before)) + 1/float64(len(d))) * (1 + phi) / (1 - phi)
		switch {
		case tu.knownMean != 0:
			v = 1 / float64(len(d))
		case tu.exact:
			v = ar1DiffVariance(phi, len(before), len(d))
		}
		df := max(kept-1, 1)
		if tu.knownScale != 0 {
			df = 0
		}
		f(split{tau: tau, runs: n - tau, used: len(d), before: mb, after: sign*scale*raw/float64(len(d)) + mb,
			z: shift / math.Sqrt(v) / (1 + tu.shortLevel/float64(len(before))), df: df})
	}
}

// withoutOutliers leaves out of the new level's runs d (in scales from the old level) those
// further than outlier scales either side: two wild runs are not a new level, and the runs
// beside them are judged without them. Unless at least minRuns runs stand beyond half that
// on the worse side: then they are a large step, whose runs may straddle the bound.
func (tu tuning) withoutOutliers(d []float64, minRuns int) []float64 {
	if tu.outlier == 0 {
		return d
	}
	high := 0
	for _, v := range d {
		if v > tu.outlier/2 {
			high++
		}
	}
	if high >= minRuns {
		return d
	}
	return slices.DeleteFunc(d, func(v float64) bool { return math.Abs(v) > tu.outlier })
}

// level is the old level: the mean and standard deviation of its runs within clip median
// absolute deviations of its median (efficient for normal noise; an outlier run moves
// neither), how many runs that kept, and φ, its lag-1 autocorrelation corrected for the small-sample bias (about
// -(1+3φ)/n) plus phiMargin standard errors, clamped to [0, 0.9]: underestimating φ is what
// turns drift into false alarms.
func (tu tuning) level(x []float64) (mu, scale, phi float64, kept int) {
	med := median(x)
	abs := make([]float64, len(x))
	for i, v := range x {
		abs[i] = math.Abs(v - med)
	}
	mad := 1.4826 * median(abs)
	var in []float64
	for _, v := range x {
		if math.Abs(v-med) <= tu.clip*mad {
			in = append(in, v)
		}
	}
	mu = mean(in)
	var ss float64
	for _, v := range in {
		ss += (v - mu) * (v - mu)
	}
	if len(in) > 1 {
		scale = math.Sqrt(ss / float64(len(in)-1))
	}
	var num, den float64
	for i, v := range x {
		den += (v - mu) * (v - mu)
		if i > 0 {
			num += (v - mu) * (x[i-1] - mu)
		}
	}
	if den > 0 {
		n := float64(len(x))
		phi = num / den
		phi += (1+3*phi)/n + tu.phiMargin*math.Sqrt(max(1-phi*phi, 0)/n)
	}
	return mu, scale, min(max(phi, 0), 0.9), len(in)
}

// ar1DiffVariance is the variance, in units of the noise's, of the difference between the
// means of nb runs and of the na runs right after them under AR(1) noise with coefficient phi.
func ar1DiffVariance(phi float64, nb, na int) float64 {
	within := func(n int) float64 {
		s, p := 1.0, 1.0
		for k := 1; k < n; k++ {
			p *= phi
			s += 2 * (1 - float64(k)/float64(n)) * p
		}
		return s / float64(n)
	}
	geo := func(from, to int) float64 { // Σ φ^u, u in [from, to]
		s := 0.0
		for u := from; u <= to; u++ {
			s += math.Pow(phi, float64(u))
		}
		return s
	}
	cov := geo(0, nb-1) * geo(1, na) / float64(nb*na)
	return within(nb) + within(na) - 2*cov
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benjaminiHochberg returns, for m hypotheses of which p holds the tested ones' p-values
// (the others count as 1), which of p are discoveries at false discovery rate q.
func benjaminiHochberg(p []float64, m int, q float64) []bool {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	k := 0
	for r, i := range idx {
		if p[i] <= float64(r+1)*q/float64(max(m, len(p))) {
			k = r + 1
		}
	}
	out := make([]bool, len(p))
	for r := 0; r < k; r++ {
		out[idx[r]] = true
	}
	return out
}
