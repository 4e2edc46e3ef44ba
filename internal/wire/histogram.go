package wire

import "math/bits"

// subBits sets the histogram's resolution: each power of two is split into 2^(subBits-1)
// buckets, so a bucket's midpoint is within 1/1024 (0.1%) of any value in it. Values below
// 2^subBits ns (about 1 µs) are exact.
const subBits = 10

// Histogram counts durations in nanoseconds in log-linear buckets: bounded memory (at most
// 55 × 1024 counters) whatever the number of requests, and percentiles within 0.1% of the
// exact order statistics, well inside the 2% the design asks of reported figures.
type Histogram struct {
	counts []int64
	n      int64
	max    int64
}

func bucketOf(v int64) int {
	if v < 1<<subBits {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits
	return shift<<subBits | int(v>>shift)
}

// midpoint is a value that stands for every value in bucket b.
func midpoint(b int) int64 {
	shift := b >> subBits
	if shift == 0 {
		return int64(b)
	}
	mant := int64(b & (1<<subBits - 1))
	return mant<<shift + (int64(1)<<shift)/2
}

// Record counts one duration (negative durations count as 0).
func (h *Histogram) Record(ns int64) {
	ns = max(ns, 0)
	b := bucketOf(ns)
	if b >= len(h.counts) {
		grown := make([]int64, b+1)
		copy(grown, h.counts)
		h.counts = grown
	}
	h.counts[b]++
	h.n++
	h.max = max(h.max, ns)
}

// Count is the number of durations recorded.
func (h *Histogram) Count() int64 { return h.n }

// Max is the largest duration recorded, exactly.
func (h *Histogram) Max() int64 { return h.max }

// Quantile is the nearest-rank q-quantile (0 < q <= 1): the value at rank ceil(q·n) of the
// sorted durations, to the bucket's resolution; 0 with no durations.
func (h *Histogram) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q * float64(h.n))
	if float64(rank) < q*float64(h.n) {
		rank++
	}
	rank = min(max(rank, 1), h.n)
	var seen int64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(midpoint(b), h.max)
		}
	}
	return h.max
}
