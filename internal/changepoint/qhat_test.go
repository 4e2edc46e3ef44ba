package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slowBest is q̂ straight from its definition, O(N⁴): the reference for the running sums.
func slowBest(z []float64) (int, float64) {
	bestTau, bestQ := 0, math.Inf(-1)
	for tau := 1; tau < len(z); tau++ {
		for kappa := tau + 1; kappa <= len(z); kappa++ {
			x, y := z[:tau], z[tau:kappa]
			n, m := float64(len(x)), float64(len(y))
			var a, b, c float64
			for _, xi := range x {
				for _, yj := range y {
					a += math.Abs(xi - yj)
				}
			}
			for i := range x {
				for k := i + 1; k < len(x); k++ {
					b += math.Abs(x[i] - x[k])
				}
			}
			for j := range y {
				for k := j + 1; k < len(y); k++ {
					c += math.Abs(y[j] - y[k])
				}
			}
			q := 2 / (m + n) * a
			if n > 1 {
				q -= 2 * m / ((m + n) * (n - 1)) * b
			}
			if m > 1 {
				q -= 2 * n / ((m + n) * (m - 1)) * c
			}
			if math.IsInf(bestQ, -1) || q > bestQ+1e-9*math.Abs(bestQ) {
				bestTau, bestQ = tau, q
			}
		}
	}
	return bestTau, bestQ
}

// Matteson & James's statistic as Otava states it, in O(N²): the same split and value as
// the definition, on the published example and on random series.
func TestQHatMatchesDefinition(t *testing.T) {
	series := [][]float64{readSeries(t, "otava_sequence.txt")}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 2; n < 40; n += 3 {
		z := make([]float64, n)
		for i := range z {
			z[i] = math.Round(r.NormFloat64()*100) / 10
			if i > n/2 {
				z[i] += 3
			}
		}
		series = append(series, z)
	}
	var s qhatScratch
	for _, z := range series {
		wantTau, wantQ := slowBest(z)
		tau, q, ok := s.best(z)
		if !ok || tau != wantTau || math.Abs(q-wantQ) > 1e-9*math.Max(1, math.Abs(wantQ)) {
			t.Fatalf("%v: τ %d q̂ %v, want τ %d q̂ %v", z, tau, q, wantTau, wantQ)
		}
	}
	if _, _, ok := s.best([]float64{1}); ok {
		t.Fatal("one point has no split")
	}
}
