package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	moremath "github.com/aclements/go-moremath/stats"
)

// Two-sided critical values of U at alpha = 0.05 (the largest U still significant), from
// the published Mann-Whitney tables (e.g. Siegel & Castellan, table J; any statistics text).
func TestCriticalUMatchesPublishedTable(t *testing.T) {
	for _, c := range []struct{ n1, n2, want int }{
		{4, 4, 0}, {4, 6, 2}, {5, 5, 2}, {5, 8, 6}, {6, 6, 5}, {7, 7, 8}, {8, 8, 13},
		{10, 10, 23}, {12, 12, 37}, {15, 15, 64}, {20, 20, 127}, {3, 3, -1},
	} {
		if got, _ := criticalU(c.n1, c.n2, 0.025); got != c.want {
			t.Errorf("critical U(%d, %d) = %d, the table says %d", c.n1, c.n2, got, c.want)
		}
	}
}

func TestExactPValuesByHand(t *testing.T) {
	// Complete separation: P(U = 0) = 1/C(8,4) = 1/70, two-sided 2/70.
	r, err := MannWhitney([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8})
	if err != nil || r.U != 0 || !r.Exact || math.Abs(r.P-2.0/70) > 1e-12 {
		t.Fatalf("separated 4 vs 4: %+v %v", r, err)
	}
	// n = 5 a side: U counts as the partitions of U into at most 5 parts of at most 5:
	// 1, 1, 2, 3, 5, 7, 9 for U = 0..6, of C(10,5) = 252 choices.
	r, _ = MannWhitney([]float64{1, 2, 3, 4, 7}, []float64{5, 6, 8, 9, 10})
	if want := 2 * 4.0 / 252; r.U != 2 || math.Abs(r.P-want) > 1e-12 {
		t.Fatalf("U=2 at 5 vs 5: %+v, want p %v", r, want)
	}
	r, _ = MannWhitney([]float64{1, 2, 4, 5, 9}, []float64{3, 6, 7, 8, 10})
	if want := 2 * 28.0 / 252; r.U != 6 || math.Abs(r.P-want) > 1e-12 {
		t.Fatalf("U=6 at 5 vs 5: %+v, want p %v", r, want)
	}
	// R's ?wilcox.test example (Hollander & Wolfe, permeability): W = 35 and one-sided
	// p = 0.1272, so two-sided 0.2544.
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	r, _ = MannWhitney(x, y)
	if r.U != 35 || math.Abs(r.P-0.2544) > 5e-5 {
		t.Fatalf("R's example: %+v, want U 35 p 0.2544", r)
	}
	// Every value equal: no evidence at all.
	if r, _ := MannWhitney([]float64{5, 5, 5, 5}, []float64{5, 5, 5, 5}); r.P != 1 {
		t.Fatalf("all equal: %+v", r)
	}
	if _, err := MannWhitney(nil, []float64{1}); err == nil {
		t.Fatal("an empty sample must be refused")
	}
}

// benchstat's statistics (go-moremath) is the reference: same U, same p-value, with and
// without ties, exact and approximate, on random samples of every size a run can have.
func TestMannWhitneyAgreesWithBenchstat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		n1, n2 := 1+rng.IntN(20), 1+rng.IntN(20)
		ties := i%2 == 0
		x, y := sample(rng, n1, 0, ties), sample(rng, n2, rng.Float64()*2, ties)
		got, err := MannWhitney(x, y)
		want, werr := moremath.MannWhitneyUTest(x, y, moremath.LocationDiffers)
		if errors.Is(werr, moremath.ErrSamplesEqual) {
			if err != nil || got.P != 1 {
				t.Fatalf("all equal %v %v: %+v %v", x, y, got, err)
			}
			continue
		}
		if err != nil || werr != nil {
			t.Fatalf("%v %v: %v / %v", x, y, err, werr)
		}
		wantP := math.Min(1, want.P)
		if ties {
			// benchstat doubles the lower tail of x's U; with ties the distribution may
			// be skewed, and the two tails are summed here: the upper one from its CDF.
			small := math.Min(want.U, float64(n1*n2)-want.U)
			d := moremath.UDist{N1: n1, N2: n2, T: tiePattern(x, y)}
			wantP = math.Min(1, d.CDF(small)+1-d.CDF(float64(n1*n2)-small-0.5))
			if small == float64(n1*n2)/2 {
				wantP = 1
			}
		}
		if got.U != want.U || math.Abs(got.P-wantP) > 1e-9*math.Max(1, wantP) {
			t.Fatalf("x=%v y=%v: U %v p %v, benchstat U %v p %v", x, y, got.U, got.P, want.U, wantP)
		}
	}
	// Large samples: both use the normal approximation with tie and continuity corrections.
	for i := 0; i < 50; i++ {
		x, y := sample(rng, 60, 0, i%2 == 0), sample(rng, 61, 0.3, i%2 == 0)
		got, _ := MannWhitney(x, y)
		want, _ := moremath.MannWhitneyUTest(x, y, moremath.LocationDiffers)
		if got.Exact || math.Abs(got.P-want.P) > 1e-9 {
			t.Fatalf("normal approximation: p %v (exact %v), benchstat %v", got.P, got.Exact, want.P)
		}
	}
}

// Under the null hypothesis (both samples from one distribution) the test rejects at most
// alpha of the time; it is conservative with discrete U, never liberal.
func TestMannWhitneyFalsePositiveRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{4, 6, 10} {
		rejected, trials := 0, 4000
		for i := 0; i < trials; i++ {
			if r, _ := MannWhitney(sample(rng, n, 0, false), sample(rng, n, 0, false)); r.P < 0.05 {
				rejected++
			}
		}
		// 4000 draws: the binomial standard error at 5% is 0.34%.
		if rate := float64(rejected) / float64(trials); rate > 0.05+0.012 {
			t.Errorf("n=%d: rejected %.3f of true nulls at alpha 0.05", n, rate)
		}
	}
}

// Properties: only ranks matter, and swapping the samples mirrors U and keeps p.
func TestMannWhitneyProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500; i++ {
		n1, n2 := 1+rng.IntN(12), 1+rng.IntN(12)
		x, y := sample(rng, n1, 1, i%3 == 0), sample(rng, n2, 1+rng.Float64(), i%3 == 0)
		a, _ := MannWhitney(x, y)
		b, _ := MannWhitney(y, x)
		if a.U+b.U != float64(n1*n2) || math.Abs(a.P-b.P) > 1e-12 {
			t.Fatalf("swap: %+v / %+v", a, b)
		}
		lx, ly := apply(x, math.Log), apply(y, math.Log)
		c, _ := MannWhitney(lx, ly)
		if c.U != a.U || math.Abs(c.P-a.P) > 1e-12 {
			t.Fatalf("monotone transform changed the test: %+v / %+v", a, c)
		}
	}
}

// sample draws n values around shift+10; with ties, values are rounded to a coarse grid.
func sample(rng *rand.Rand, n int, shift float64, ties bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 10 + shift + rng.NormFloat64()
		if ties {
			v[i] = math.Round(v[i]*2) / 2
		}
	}
	return v
}

// tiePattern is the sizes of the runs of equal values in the merged samples, ascending.
func tiePattern(x, y []float64) []int {
	all := append(append([]float64(nil), x...), y...)
	slices.Sort(all)
	var t []int
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j] == all[i] {
			j++
		}
		t = append(t, j-i)
		i = j
	}
	return t
}

func apply(v []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}
