package wire

// Bucket is one non-empty histogram bucket: its index (the log-linear layout of Histogram,
// fixed by subBits) and its count. A histogram travels as its buckets so that several
// captures of one trial (one per target pod) merge into one distribution, exactly as one
// capture would have counted them.
type Bucket struct {
	Index int   `json:"i"`
	Count int64 `json:"n"`
}

// Buckets lists the non-empty buckets in index order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for i, c := range h.counts {
		if c > 0 {
			out = append(out, Bucket{Index: i, Count: c})
		}
	}
	return out
}

// maxBucket bounds a bucket index read from elsewhere: the index of the largest int64.
var maxBucket = bucketOf(1<<63 - 1)

// Merge adds buckets and their maximum (ns) to h. Indexes out of the layout's range are
// ignored: they cannot come from a Histogram.
func (h *Histogram) Merge(bs []Bucket, maxNs int64) {
	for _, b := range bs {
		if b.Index < 0 || b.Index > maxBucket || b.Count <= 0 {
			continue
		}
		if b.Index >= len(h.counts) {
			grown := make([]int64, b.Index+1)
			copy(grown, h.counts)
			h.counts = grown
		}
		h.counts[b.Index] += b.Count
		h.n += b.Count
	}
	h.max = max(h.max, maxNs)
}

// Summary is a histogram's figures in microseconds, as Result reports them.
func (h *Histogram) Summary() (p50, p90, p95, p99, p999, maxUs int64) {
	us := func(ns int64) int64 { return (ns + 500) / 1000 }
	return us(h.Quantile(0.50)), us(h.Quantile(0.90)), us(h.Quantile(0.95)),
		us(h.Quantile(0.99)), us(h.Quantile(0.999)), us(h.Max())
}

// MaxBuckets bounds the buckets a capture's figures carry. A target decides its own
// latencies: spread from 1 µs to 300 s they fill about 14,400 buckets (250 KiB as JSON),
// and the agent keeps hundreds of results. 2,048 buckets cover that spread at an eighth
// of the resolution: a quantile moves by at most 0.8%, inside the 2% the figures allow.
const MaxBuckets = 2048

// CapBuckets returns bs (in index order) with at most n buckets: when there are more,
// neighbouring buckets of each power of two are merged, 2, 4, 8... at a time, until they
// fit; a merged bucket's count goes to the middle index of its group, so merging
// histograms and reading quantiles work as before, at the coarser resolution.
func CapBuckets(bs []Bucket, n int) []Bucket {
	if len(bs) <= n || n <= 0 {
		return bs
	}
	// Within one power of two (index shift<<subBits | mantissa, the mantissa's top bit
	// set), index>>k groups 2^k neighbours without crossing into the next power.
	for k := 1; k < subBits; k++ {
		var out []Bucket
		for _, b := range bs {
			g := b.Index>>k<<k | 1<<(k-1)
			if len(out) > 0 && out[len(out)-1].Index == g {
				out[len(out)-1].Count += b.Count
				continue
			}
			out = append(out, Bucket{Index: g, Count: b.Count})
		}
		if len(out) <= n {
			return out
		}
	}
	// Unreachable for n >= 55 (one bucket per power of two at k = subBits-1).
	return bs[:n]
}
