package wire

import (
	"math"
	"net/netip"
	"runtime"
	"testing"
)

// heapAfter runs f and returns the live heap it left behind (after a collection), so a
// test can bound what hostile input may make the agent hold.
func heapAfter(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// conn1M is the i-th of a million client ends: distinct addresses and ports.
func connN(i int) Conn {
	return Conn{Addr: netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), Port: uint16(1024 + i%60000)}
}

// A target (or anything reaching its port) that opens a million connections and never
// closes them must not make the capture hold a million connections' state: beyond the
// budget new connections are refused and counted, and the requests on them are not
// measured (so the capture reads as incomplete rather than wrong).
func TestPairerConnectionBudget(t *testing.T) {
	const n = 1_000_000
	var p *Pairer
	grown := heapAfter(func() {
		p = NewPairer()
		for i := range n {
			p.Add(req(int64(i), connN(i), true))
		}
	})
	t.Logf("1M open connections: %d connections kept, %d refused, heap %d bytes (%.1f MiB)",
		len(p.conns), p.Refused, grown, float64(grown)/(1<<20))
	if len(p.conns) > DefaultMaxConns || p.Refused != n-int64(len(p.conns)) {
		t.Errorf("kept %d connections, refused %d: want at most %d kept and the rest counted", len(p.conns), p.Refused, DefaultMaxConns)
	}
	if p.Requests != int64(len(p.conns)) {
		t.Errorf("requests %d: only the tracked connections' requests count", p.Requests)
	}
	if grown > 8<<20 {
		t.Errorf("1M connections held %d bytes: want at most 8 MiB", grown)
	}
	runtime.KeepAlive(p)

	// A closed connection gives its place back.
	q := NewPairer()
	q.budget = &connBudget{max: 1}
	q.Add(req(0, c1, true))
	q.Add(req(1, c2, true))
	q.Add(resp(2, c1))
	q.Add(fin(3, c1, true))
	q.Add(req(4, c2, true))
	q.Add(resp(5, c2))
	if q.Refused != 1 || q.Latency.Count() != 2 {
		t.Errorf("after a close: refused %d, answered %d; want 1 and 2", q.Refused, q.Latency.Count())
	}
}

// Pairers of one capture (one per interface a packet crosses) share one budget: a packet
// counted on three interfaces must not triple what the capture may hold.
func TestPairersShareBudget(t *testing.T) {
	b := &connBudget{max: 10}
	ps := []*Pairer{newPairer(b), newPairer(b), newPairer(b)}
	for i := range 100 {
		for _, p := range ps {
			p.Add(req(int64(i), connN(i), true))
		}
	}
	held := 0
	for _, p := range ps {
		held += len(p.conns)
	}
	if held != 10 || b.used != 10 {
		t.Errorf("three pairers hold %d connections (budget says %d): want 10 in all", held, b.used)
	}
	for _, p := range ps {
		p.Finish()
	}
	if b.used != 0 {
		t.Errorf("after Finish the budget holds %d: want 0", b.used)
	}
}

// A target controls its own latencies: spread from 1 µs to 300 s they would fill tens of
// thousands of buckets. What travels (and what the agent keeps) is capped, coarser
// beyond the cap, and the percentiles stay within 2%.
func TestBucketsCapped(t *testing.T) {
	var h Histogram
	const n = 100_000
	lo, hi := 1_000.0, 300e9
	for i := range n {
		// Log-spread: every octave from 1 µs to 300 s gets its share.
		v := lo * pow(hi/lo, float64(i)/float64(n-1))
		h.Record(int64(v))
	}
	full := h.Buckets()
	capped := CapBuckets(full, MaxBuckets)
	t.Logf("%d latencies from 1 µs to 300 s: %d buckets, %d after the cap (%d bytes as JSON at most)", n, len(full), len(capped), len(capped)*24)
	if len(capped) > MaxBuckets {
		t.Fatalf("%d buckets after the cap: want at most %d", len(capped), MaxBuckets)
	}
	var merged Histogram
	merged.Merge(capped, h.Max())
	if merged.Count() != h.Count() {
		t.Fatalf("count %d after the cap: want %d", merged.Count(), h.Count())
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want, got := float64(h.Quantile(q)), float64(merged.Quantile(q))
		if d := (got - want) / want; d > 0.02 || d < -0.02 {
			t.Errorf("q%.3f: %v after the cap, %v before: %.2f%% apart, want within 2%%", q, got, want, d*100)
		}
	}
	// Few buckets pass unchanged.
	few := []Bucket{{Index: 5, Count: 1}, {Index: 2000, Count: 3}}
	if got := CapBuckets(few, MaxBuckets); len(got) != 2 || got[0] != few[0] || got[1] != few[1] {
		t.Errorf("two buckets became %v", got)
	}
}

func pow(b, e float64) float64 { return math.Pow(b, e) }
