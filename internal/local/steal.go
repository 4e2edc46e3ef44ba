package local

import (
	"slices"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
)

// stealOver is what the hypervisor took from the CPUs a trial ran on (its target's and its
// k6's; every CPU when nothing was pinned), read at both ends of the measured window.
// Nothing when the trial stopped first or /proc/stat could not be read.
func stealOver(cpus []int, start, end time.Time, stop <-chan struct{}) hoststeal.Taken {
	read := func() (hoststeal.Sample, error) { return hoststeal.Read(cpus) }
	first, last, ok := atBothEnds(start, end, stop, read)
	if !ok {
		return hoststeal.Taken{}
	}
	taken, _ := hoststeal.Window(first, last)
	return taken
}

// trialCPUs are the CPUs a trial's target and k6 run on, in order; empty when either is
// unpinned (then every CPU is theirs).
func (p placement) trialCPUs(target string) []int {
	t, g := p.targetCPUs(target), p.generator
	if len(t) == 0 || len(g) == 0 {
		return nil
	}
	cpus := slices.Concat(t, g)
	slices.Sort(cpus)
	return slices.Compact(cpus)
}
