// Package hoststeal reads the CPU time a hypervisor took from this machine's CPUs while
// they wanted to run (steal: /proc/stat's eighth column, top's "st"). A cloud guest's
// neighbours take it in bursts; a trial caught in a large one measures the neighbours as
// much as the target (docs/measurement.md, "Steal").
package hoststeal

import (
	"fmt"
	"slices"

	"github.com/prometheus/procfs"
)

// Sample is the cumulative time of some CPUs at one moment, in seconds.
type Sample struct {
	CPUs         []int
	Steal, Total float64
}

// Read samples the CPUs named (every CPU when cpus is empty) from /proc/stat.
func Read(cpus []int) (Sample, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return Sample{}, err
	}
	st, err := fs.Stat()
	if err != nil {
		return Sample{}, err
	}
	return Of(st.CPU, cpus)
}

// Of sums the CPUs named (every CPU when cpus is empty) of a /proc/stat's per-CPU lines.
func Of(perCPU map[int64]procfs.CPUStat, cpus []int) (Sample, error) {
	if len(cpus) == 0 {
		for c := range perCPU {
			cpus = append(cpus, int(c))
		}
		slices.Sort(cpus)
	}
	s := Sample{CPUs: cpus}
	for _, c := range cpus {
		v, ok := perCPU[int64(c)]
		if !ok {
			return Sample{}, fmt.Errorf("/proc/stat has no line for CPU %d", c)
		}
		// guest and guest_nice are already inside user and nice.
		s.Total += v.User + v.Nice + v.System + v.Idle + v.Iowait + v.IRQ + v.SoftIRQ + v.Steal
		s.Steal += v.Steal
	}
	return s, nil
}

// Taken is what the hypervisor took from some CPUs over an interval: its mean, summed over
// the CPUs, in millicores, and how many CPUs were read (0: none, nothing was read).
type Taken struct {
	Millicores int64
	CPUs       int32
}

// Window is the steal between two samples of the same CPUs. ok is false when the samples do
// not cover the same CPUs or no time passed.
func Window(first, last Sample) (t Taken, ok bool) {
	total := last.Total - first.Total
	if !slices.Equal(first.CPUs, last.CPUs) || len(first.CPUs) == 0 || total <= 0 {
		return t, false
	}
	n := len(first.CPUs)
	// Total is the CPUs' time together: their count times the interval, to /proc/stat's
	// tick, so the share needs no clock of its own.
	share := max(0, last.Steal-first.Steal) / total
	return Taken{Millicores: int64(share*float64(n)*1000 + 0.5), CPUs: int32(n)}, true
}
