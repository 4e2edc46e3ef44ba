package results

import (
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A target that flushes its first byte at once and computes for 6 ms afterwards: the wire
// (to the first byte) says 50 µs, k6 (to the last) 6 ms. The row keeps the wire as
// its record and stays valid, and its message says the two disagree, with the figures. An
// honest row (k6 less the floor within 2x the wire's p50 plus 1 ms) carries no such note.
func TestFirstByteGapIsNoted(t *testing.T) {
	gaming := func(rep int32) benchv1.Trial {
		return withWire(measured(rep, 1000000, 24000, 300, 0, 0), 50, 900) // k6 p50 = p99/4 = 6 ms
	}
	trials := []benchv1.Trial{gaming(1), gaming(2), gaming(3), floorTrial(900)} // floor p50 200 µs
	r := Aggregate(runSpec(), trials)[0]
	if r.LatencySource != benchv1.LatencyWire || !r.Valid {
		t.Fatalf("the row: source %s, valid %v, flags %v: want the wire's and valid (a note, not a flag)", r.LatencySource, r.Valid, r.Flags)
	}
	if !strings.Contains(r.Message, "k6's p50 less the generator floor's (5.80ms) is over 2x the wire's p50 (50µs)") {
		t.Errorf("message %q: want the first-byte gap noted with its figures", r.Message)
	}

	honest := []benchv1.Trial{withWire(measured(1, 1000000, 4000, 300, 0, 0), 400, 900), floorTrial(900)} // k6 p50 1 ms, floor 200 µs, wire 400 µs
	if r := Aggregate(runSpec(), honest)[0]; strings.Contains(r.Message, "first response byte") {
		t.Errorf("an honest row is noted: %q", r.Message)
	}
}

func TestFirstByteGap(t *testing.T) {
	for _, c := range []struct {
		k6, floor, wire int64
		noted           bool
	}{
		{k6: 20_200, floor: 200, wire: 50, noted: true},
		{k6: 2_200, floor: 200, wire: 500, noted: false}, // 2,000 = 2 x 500 + 1,000: at the bound
		{k6: 2_201, floor: 200, wire: 500, noted: true},
		{k6: 900, floor: 800, wire: 20, noted: false},  // microseconds apart: k6's scheduling
		{k6: 20_200, floor: 0, wire: 50, noted: false}, // no floor: k6's own time unknown
	} {
		if got := FirstByteGap(c.k6, c.floor, c.wire) != ""; got != c.noted {
			t.Errorf("k6 %d, floor %d, wire %d: noted %v, want %v", c.k6, c.floor, c.wire, got, c.noted)
		}
	}
}
