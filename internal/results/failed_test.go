package results

import (
	"slices"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A row whose requests mostly failed is invalid even with no SLO to judge errors against
// (a closed model, as the samples that time out run): half is still a measurement of the
// target, one request more than half is not.
func TestMostlyFailedRowIsInvalid(t *testing.T) {
	s := runSpec()
	s.SLO = nil
	s.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{1000}}
	for _, c := range []struct {
		errPPM int64
		flag   bool
	}{{0, false}, {MostlyFailedPPM, false}, {MostlyFailedPPM + 1, true}, {1_000_000, true}} {
		r := Aggregate(s, []benchv1.Trial{measured(1, 1000, 20_000_000, 100, 0, c.errPPM)})[0]
		if got := slices.Contains(r.Flags, FlagMostlyFailed); got != c.flag || r.Valid == c.flag {
			t.Errorf("%d ppm failed: MostlyFailed %v valid %v, want MostlyFailed %v", c.errPPM, got, r.Valid, c.flag)
		}
	}
	// One repetition that mostly failed voids the row, as any flagged repetition does.
	r := Aggregate(s, []benchv1.Trial{measured(1, 1000, 2000, 100, 0, 0), measured(2, 1000, 20_000_000, 100, 0, 900_000)})[0]
	if r.Valid || !slices.Contains(r.Flags, FlagMostlyFailed) {
		t.Errorf("one mostly failed repetition of two: valid %v flags %v", r.Valid, r.Flags)
	}
	if !slices.Contains(ValidityFlags, FlagMostlyFailed) {
		t.Error("MostlyFailed is not among ValidityFlags: the flag metric would label it Other")
	}
}
