package wire

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The histogram's quantiles against the exact nearest-rank order statistics of the same
// values: within 0.1% (the design allows 2%).
func TestHistogramQuantilesMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var vals []int64
	for range 100_000 {
		// Log-normal-ish: 30 µs to tens of ms, like a latency distribution with a tail.
		v := int64(30_000 * (1 + rng.ExpFloat64()*rng.ExpFloat64()*20))
		vals = append(vals, v)
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
		rank := int(q*float64(len(vals)) + 0.999999)
		exact := vals[rank-1]
		got := h.Quantile(q)
		if d := float64(got-exact) / float64(exact); d > 0.001 || d < -0.001 {
			t.Errorf("q%.3f: got %d, exact %d (%.3f%%)", q, got, exact, d*100)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Count() != int64(len(vals)) {
		t.Errorf("max %d count %d, want %d %d", h.Max(), h.Count(), vals[len(vals)-1], len(vals))
	}
}

func TestHistogramSmallAndEmpty(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 {
		t.Fatal("empty histogram must give 0")
	}
	for _, v := range []int64{5, 1, 3, 2, 4} {
		h.Record(v)
	}
	// Values under 1 µs are exact: nearest rank of 1..5.
	for q, want := range map[float64]int64{0.2: 1, 0.5: 3, 0.9: 5, 1: 5} {
		if got := h.Quantile(q); got != want {
			t.Errorf("q%v = %d, want %d", q, got, want)
		}
	}
	h.Record(-7)
	if h.Quantile(0.01) != 0 {
		t.Error("a negative duration must count as 0")
	}
}
