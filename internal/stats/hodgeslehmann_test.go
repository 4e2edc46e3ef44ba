package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHodgesLehmannByHand(t *testing.T) {
	// The 16 differences y-x run 1..7 with median 4; at n = m = 4 the 95% interval is
	// [D(1), D(16)] with coverage 1 - 2/70.
	s, err := HodgesLehmann([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0.95)
	if err != nil || s.Estimate != 4 || s.Low != 1 || s.High != 7 || math.Abs(s.Confidence-68.0/70) > 1e-12 {
		t.Fatalf("%+v %v", s, err)
	}
	// Three a side cannot reach 95%: the interval is unbounded, and says so.
	s, _ = HodgesLehmann([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.95)
	if !math.IsInf(s.Low, -1) || !math.IsInf(s.High, 1) || s.Estimate != 3 {
		t.Fatalf("n=3: %+v", s)
	}
	if _, err := HodgesLehmann([]float64{1}, nil, 0.95); err == nil {
		t.Fatal("an empty sample must be refused")
	}
}

// The interval inverts the test: a shift inside it is not rejected at alpha, a shift
// outside it is. Checked at midpoints between the sorted differences (no ties arise there).
func TestHodgesLehmannIntervalInvertsTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 300; i++ {
		n1, n2 := 4+rng.IntN(9), 4+rng.IntN(9)
		x, y := sample(rng, n1, 0, false), sample(rng, n2, rng.Float64()*3, false)
		s, _ := HodgesLehmann(x, y, 0.95)
		var d []float64
		for _, xi := range x {
			for _, yj := range y {
				d = append(d, yj-xi)
			}
		}
		slices.Sort(d)
		for k := 0; k+1 < len(d); k++ {
			delta := (d[k] + d[k+1]) / 2
			r, _ := MannWhitney(apply(x, func(v float64) float64 { return v + delta }), y)
			inside := delta > s.Low && delta < s.High
			if inside != (r.P > 0.05) {
				t.Fatalf("n=%d,%d shift %v: inside [%v, %v] = %v but p = %v", n1, n2, delta, s.Low, s.High, inside, r.P)
			}
		}
	}
}

// Equivariance: shifting y shifts the estimate and the interval; swapping the samples
// negates them; scaling both scales them.
func TestHodgesLehmannProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) }
	for i := 0; i < 500; i++ {
		x, y := sample(rng, 4+rng.IntN(10), 0, i%2 == 0), sample(rng, 4+rng.IntN(10), rng.Float64(), i%2 == 0)
		s, _ := HodgesLehmann(x, y, 0.95)
		if s.Low > s.Estimate || s.Estimate > s.High {
			t.Fatalf("estimate outside its interval: %+v", s)
		}
		c := rng.Float64() * 10
		sh, _ := HodgesLehmann(x, apply(y, func(v float64) float64 { return v + c }), 0.95)
		if !near(sh.Estimate, s.Estimate+c) || !near(sh.Low, s.Low+c) || !near(sh.High, s.High+c) {
			t.Fatalf("shift by %v: %+v -> %+v", c, s, sh)
		}
		sw, _ := HodgesLehmann(y, x, 0.95)
		if !near(sw.Estimate, -s.Estimate) || !near(sw.Low, -s.High) || !near(sw.High, -s.Low) {
			t.Fatalf("swap: %+v -> %+v", s, sw)
		}
		k := 1 + rng.Float64()*100
		scale := func(v float64) float64 { return v * k }
		sc, _ := HodgesLehmann(apply(x, scale), apply(y, scale), 0.95)
		if !near(sc.Estimate, s.Estimate*k) || !near(sc.Low, s.Low*k) || !near(sc.High, s.High*k) {
			t.Fatalf("scale by %v: %+v -> %+v", k, s, sc)
		}
	}
}

// Coverage: with a known shift, the 95% interval contains it at least 95% of the time
// (up to sampling error), for normal and for skewed (latency-like) distributions.
func TestHodgesLehmannCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, skewed := range []bool{false, true} {
		for _, n := range []int{4, 6, 10} {
			covered, trials := 0, 2000
			for i := 0; i < trials; i++ {
				x, y := make([]float64, n), make([]float64, n)
				for j := range x {
					x[j], y[j] = draw(rng, skewed), draw(rng, skewed)+1.5
				}
				if s, _ := HodgesLehmann(x, y, 0.95); s.Low <= 1.5 && 1.5 <= s.High {
					covered++
				}
			}
			// Standard error at 95% over 2000 draws: 0.5%.
			if rate := float64(covered) / float64(trials); rate < 0.95-0.015 {
				t.Errorf("n=%d skewed=%v: covered %.3f", n, skewed, rate)
			}
		}
	}
}

func draw(rng *rand.Rand, skewed bool) float64 {
	if skewed {
		return rng.ExpFloat64() * 2
	}
	return rng.NormFloat64()
}
