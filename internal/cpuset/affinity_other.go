//go:build !linux

package cpuset

import (
	"errors"
	"os/exec"
)

// errNoAffinity: CPU affinity is Linux's (sched_setaffinity). Elsewhere the local mode runs
// k6 and the targets unpinned, and its placement status says why.
var errNoAffinity = errors.New("pinning processes to CPUs needs Linux")

// Available is the CPUs this process may run on: unknown off Linux.
func Available() ([]int, error) { return nil, errNoAffinity }

// Start starts cmd unpinned when no CPUs are asked for, and refuses to pin it.
func Start(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	return errNoAffinity
}

// Of is the CPUs a running process may use: unknown off Linux.
func Of(pid int) ([]int, error) { return nil, errNoAffinity }
