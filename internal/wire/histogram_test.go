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

// Two histograms merged through their buckets give the figures of one histogram that
// counted every value.
func TestMergeBuckets(t *testing.T) {
	var a, b, all, merged Histogram
	for i := int64(1); i <= 3000; i++ {
		v := i * 997 % 5_000_000
		all.Record(v)
		if i%3 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
	}
	merged.Merge(a.Buckets(), a.Max())
	merged.Merge(b.Buckets(), b.Max())
	merged.Merge([]Bucket{{Index: -1, Count: 5}, {Index: maxBucket + 1, Count: 5}}, 0) // ignored
	if merged.Count() != all.Count() || merged.Max() != all.Max() {
		t.Fatalf("count %d max %d, want %d %d", merged.Count(), merged.Max(), all.Count(), all.Max())
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		if merged.Quantile(q) != all.Quantile(q) {
			t.Errorf("q%v: %d, want %d", q, merged.Quantile(q), all.Quantile(q))
		}
	}
}
