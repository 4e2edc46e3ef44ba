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
