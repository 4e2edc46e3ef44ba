//go:build linux

package cpuset

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// Available is the CPUs this process may run on.
func Available() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}

// Start starts cmd on the given CPUs (none: unchanged). A child inherits the affinity of
// the thread that forks it, so the calling goroutine is locked to its thread, that thread is
// pinned for the fork and restored after: every thread and child of cmd then stays on cpus,
// with no window in which it runs elsewhere.
func Start(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity %s: %w", Format(cpus), err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &old); err != nil {
		// This thread is left pinned: end it with the goroutine rather than reuse it.
		return fmt.Errorf("restoring this thread's CPUs: %w (start: %v)", err, startErr)
	}
	return startErr
}

// Of is the CPUs a running process (thread group leader) may use.
func Of(pid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}
