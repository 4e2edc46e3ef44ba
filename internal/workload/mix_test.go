package workload

import "testing"

func TestMixIsExactOverEachPeriodAndInterleaved(t *testing.T) {
	reqs := []Request{{Weight: 60}, {Weight: 30}, {Weight: 10}}
	m := NewMix(reqs)
	if m.Total != 100 || m.CumWeights[2] != 100 || m.CumWeights[0] != 60 {
		t.Fatalf("mix %+v", m)
	}
	for period := int64(0); period < 3; period++ {
		counts := make([]int, 3)
		longestRun, run, prev := 0, 0, -1
		for i := period * 100; i < (period+1)*100; i++ {
			k := m.Pick(i)
			counts[k]++
			if k == prev {
				run++
			} else {
				run = 1
			}
			prev = k
			longestRun = max(longestRun, run)
		}
		if counts[0] != 60 || counts[1] != 30 || counts[2] != 10 {
			t.Errorf("period %d: counts %v, want exactly [60 30 10]", period, counts)
		}
		// A 60% request cannot avoid short runs, but never 60 in a row.
		if longestRun > 5 {
			t.Errorf("period %d: a run of %d identical requests; the mix should interleave", period, longestRun)
		}
	}
}

func TestMixSingleRequest(t *testing.T) {
	m := NewMix([]Request{{Weight: 3}})
	for i := int64(0); i < 10; i++ {
		if m.Pick(i) != 0 {
			t.Fatalf("iteration %d picked %d", i, m.Pick(i))
		}
	}
}

func TestMixStrideTen(t *testing.T) {
	// The smart-home mix scaled to 10: stride 7 gives positions 0,7,4,1,8,5,2,9,6,3.
	m := NewMix([]Request{{Weight: 6}, {Weight: 3}, {Weight: 1}})
	want := []int{0, 1, 0, 0, 1, 0, 0, 2, 1, 0}
	for i, w := range want {
		if got := m.Pick(int64(i)); got != w {
			t.Errorf("iteration %d: picked %d, want %d", i, got, w)
		}
	}
}
