package compare

import (
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// spareStolen leaves out the repetitions the hypervisor took (results.HostStolen), the most
// stolen first, as long as MinRepetitions remain: a burst of steal moves a repetition as
// much as the change looked for, but a side left with too few for a verdict would say
// nothing at all. Which are left out depends on the steal alone, never on the figure
// compared. Those left out are counted in out.
func spareStolen(ms []benchv1.Measurement, out map[string]int) []benchv1.Measurement {
	drop := leaveOut(len(ms), func(i int) int64 { return stealOf(ms[i]) })
	var kept []benchv1.Measurement
	for i, m := range ms {
		if drop[i] {
			out[results.LeftOutHostSteal]++
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

// spareStolenRounds is spareStolen for a pair's rounds: a round is as stolen as its more
// stolen arm, and leaves both arms; each stolen arm is counted on its side.
func spareStolenRounds(base, cur []benchv1.Measurement, baseOut, curOut map[string]int) ([]benchv1.Measurement, []benchv1.Measurement) {
	drop := leaveOut(len(base), func(i int) int64 { return max(stealOf(base[i]), stealOf(cur[i])) })
	var b, c []benchv1.Measurement
	for i := range base {
		if !drop[i] {
			b, c = append(b, base[i]), append(c, cur[i])
			continue
		}
		if results.HostStolen(base[i]) {
			baseOut[results.LeftOutHostSteal]++
		}
		if results.HostStolen(cur[i]) {
			curOut[results.LeftOutHostSteal]++
		}
	}
	return b, c
}

// leaveOut marks which of n items to leave out: those with a steal (per mille of their CPUs'
// time; 0 when under the threshold), the most stolen first, as long as MinRepetitions
// remain.
func leaveOut(n int, steal func(int) int64) []bool {
	var stolen []int
	for i := range n {
		if steal(i) > 0 {
			stolen = append(stolen, i)
		}
	}
	slices.SortStableFunc(stolen, func(a, b int) int { return int(steal(b) - steal(a)) })
	drop := make([]bool, n)
	for _, i := range stolen[:min(len(stolen), max(0, n-MinRepetitions))] {
		drop[i] = true
	}
	return drop
}

// stealOf is a measurement's steal per mille of its CPUs' time when it is over the
// threshold, else 0.
func stealOf(m benchv1.Measurement) int64 {
	if !results.HostStolen(m) {
		return 0
	}
	return results.StealPermille(m)
}
