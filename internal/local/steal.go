package local

import (
	"slices"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
)

// steal is what the hypervisor took from a trial's CPUs over its window (hoststeal).
type steal struct {
	millicores int64
	cpus       int32
}

// stealOver reads the steal of the CPUs a trial ran on (its target's and its k6's; every
// CPU when nothing was pinned) at both ends of the measured window. Zero when the trial
// stopped first or /proc/stat could not be read.
func stealOver(cpus []int, start, end time.Time, stop <-chan struct{}) steal {
	read := func() (hoststeal.Sample, error) { return hoststeal.Read(cpus) }
	first, last, ok := atBothEnds(start, end, stop, read)
	if !ok {
		return steal{}
	}
	m, n, ok := hoststeal.Window(first, last)
	if !ok {
		return steal{}
	}
	return steal{millicores: m, cpus: n}
}

// trialCPUs are the CPUs a trial's target and k6 run on, in order; empty when either is
// unpinned (then every CPU is theirs).
func (p placement) trialCPUs(target string, arm int) []int {
	t, g := p.targetCPUs(target), p.generatorCPUs(arm)
	if len(t) == 0 || len(g) == 0 {
		return nil
	}
	cpus := slices.Concat(t, g)
	slices.Sort(cpus)
	return slices.Compact(cpus)
}
