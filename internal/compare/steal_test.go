package compare

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// stolen is a repetition with p50 v whose two CPUs lost steal millicores to the hypervisor.
func stolen(v, steal int64) benchv1.Measurement {
	return benchv1.Measurement{P50Micros: v, HostStealMillicores: steal, HostCPUs: 2}
}

// The most stolen go first, and only while a verdict's MinRepetitions remain.
func TestSpareStolenKeepsEnoughForAVerdict(t *testing.T) {
	ms := []benchv1.Measurement{stolen(1, 0), stolen(2, 600), stolen(3, 200), stolen(4, 0), stolen(5, 300)}
	out := map[string]int{}
	kept := spareStolen(ms, out)
	// 2 and 5 are stolen (30% and 15%; 3's 10.0% is not over the threshold): only 2, the
	// most stolen, can go and leave four.
	if got := p50s(kept); len(got) != 4 || got[1] != 3 || got[3] != 5 || out[results.LeftOutHostSteal] != 1 {
		t.Fatalf("kept %v, left out %v", got, out)
	}
}

func TestSpareStolenRoundsDropsTheMostStolenRounds(t *testing.T) {
	// Six rounds; the candidate's rounds 2, 3 and 5 and the baseline's round 3 are stolen,
	// round 3 the most (its baseline arm), then round 5, then round 2.
	base := []benchv1.Measurement{stolen(10, 0), stolen(20, 0), stolen(30, 1000), stolen(40, 0), stolen(50, 0), stolen(60, 0)}
	cur := []benchv1.Measurement{stolen(11, 0), stolen(21, 240), stolen(31, 300), stolen(41, 0), stolen(51, 500), stolen(61, 0)}
	baseOut, curOut := map[string]int{}, map[string]int{}
	b, c := spareStolenRounds(base, cur, baseOut, curOut)
	if got := p50s(b); len(got) != 4 || got[1] != 20 || p50s(c)[1] != 21 {
		t.Fatalf("rounds kept %v / %v, want 1, 2, 4, 6", got, p50s(c))
	}
	if baseOut[results.LeftOutHostSteal] != 1 || curOut[results.LeftOutHostSteal] != 2 {
		t.Fatalf("left out: baseline %v, candidate %v", baseOut, curOut)
	}
}

func p50s(ms []benchv1.Measurement) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.P50Micros)
	}
	return out
}
