package local

import (
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A duet's arms get disjoint CPUs where the machine has them: each pair's targets a share
// of the target side; a target in no pair, the null responder and the database keep the
// whole target side, and one k6 per pair the generator side. Too few CPUs: shared, and said.
func TestPlaceDuet(t *testing.T) {
	spec := func(pairing benchv1.Pairing, targets ...benchv1.Target) *benchv1.BenchmarkRunSpec {
		s := &benchv1.BenchmarkRunSpec{Targets: targets}
		s.Load.Pairing = pairing
		return s
	}
	v1, v2 := benchv1.Target{Name: "v1"}, benchv1.Target{Name: "v2", BaselineTarget: "v1"}
	v3, solo := benchv1.Target{Name: "v3", BaselineTarget: "v1"}, benchv1.Target{Name: "solo"}
	side := func(gen, tgt []int) (placement, *benchv1.Placement) {
		return placement{generator: gen, target: tgt}, &benchv1.Placement{Message: "pinned"}
	}
	cpus := func(a ...int) []int { return a }

	// 16 CPUs: 0-7 generate, 8-15 serve; v1 and v2 each get four.
	p, st := side(cpus(0, 1, 2, 3, 4, 5, 6, 7), cpus(8, 9, 10, 11, 12, 13, 14, 15))
	p = placeDuet(spec(benchv1.PairingDuet, v1, v2, solo), p, st)
	if !slices.Equal(p.targetCPUs("v1"), cpus(8, 9, 10, 11)) || !slices.Equal(p.targetCPUs("v2"), cpus(12, 13, 14, 15)) ||
		!slices.Equal(p.targetCPUs("solo"), p.target) {
		t.Errorf("targets: v1 %v v2 %v solo %v", p.targetCPUs("v1"), p.targetCPUs("v2"), p.targetCPUs("solo"))
	}
	if !slices.Equal(p.trialCPUs("v2"), cpus(0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15)) {
		t.Errorf("v2's trial (its target and the generator side): %v", p.trialCPUs("v2"))
	}
	want := []benchv1.ArmCPUs{{Target: "v1", CPUs: "8-11"}, {Target: "v2", CPUs: "12-15"}}
	if !slices.Equal(st.Arms, want) || !strings.Contains(st.Message, "1 pair(s)' targets on CPUs of their own") ||
		!strings.Contains(st.Message, "one k6 loads each pair's arms") {
		t.Errorf("status: %+v", st)
	}

	// Three arms on 4 target CPUs: one each, the fourth unused.
	p, st = side(cpus(0, 1, 2, 3), cpus(4, 5, 6, 7))
	p = placeDuet(spec(benchv1.PairingDuet, v1, v2, v3), p, st)
	if got := []string{st.Arms[0].CPUs, st.Arms[1].CPUs, st.Arms[2].CPUs}; !slices.Equal(got, []string{"4", "5", "6"}) {
		t.Errorf("three arms: %+v", st.Arms)
	}

	// This machine's two CPUs: one a side; the arms share CPU 1, their requests in turns.
	p, st = side(cpus(0), cpus(1))
	p = placeDuet(spec(benchv1.PairingDuet, v1, v2), p, st)
	if len(st.Arms) != 0 || !slices.Equal(p.targetCPUs("v2"), cpus(1)) ||
		!strings.Contains(st.Message, "1 pair(s) with more arms than the target side's CPUs (1) share them, their requests in turns") {
		t.Errorf("two CPUs: %+v %+v", p, st)
	}

	// Interleaved, or nothing pinned: unchanged.
	for _, tc := range []struct {
		s    *benchv1.BenchmarkRunSpec
		pl   *benchv1.Placement
		name string
	}{
		{spec(benchv1.PairingInterleaved, v1, v2), &benchv1.Placement{Message: "pinned"}, "interleaved"},
		{spec(benchv1.PairingDuet, v1, v2), &benchv1.Placement{Shared: true, Message: "pinned"}, "shared"},
		{spec(benchv1.PairingDuet, v1, solo), &benchv1.Placement{Message: "pinned"}, "no pair"},
	} {
		p := placeDuet(tc.s, placement{generator: cpus(0, 1), target: cpus(2, 3)}, tc.pl)
		if p.arms != nil || tc.pl.Arms != nil || tc.pl.Message != "pinned" {
			t.Errorf("%s: %+v %+v", tc.name, p, tc.pl)
		}
	}
}
