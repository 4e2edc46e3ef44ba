package cgroups

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start calls start, which must start cmd (cmd.Start, or cpuset.Start around it), so that
// the child is born in the group and so is everything it forks: moving it after the start
// would leave a window in which it runs, and forks, unlimited. On v2, clone3 puts it there
// (SysProcAttr.UseCgroupFD). On v1, where one thread can be moved alone, the forking thread
// joins the group for the fork and goes back to this process's cgroup after; the thread
// stays alive, as SysProcAttr.Pdeathsig needs. A nil group just calls start.
func (g *Group) Start(cmd *exec.Cmd, start func() error) error {
	if g == nil {
		return start()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if g.host.Version == 2 {
		f, err := os.Open(g.cpuDir)
		if err != nil {
			return fmt.Errorf("cgroup %s: %w", g.cpuDir, err)
		}
		defer f.Close()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(f.Fd())
		return start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tid := strconv.Itoa(unix.Gettid())
		home := []string{g.host.CPUParent, g.host.MemoryParent}
		if err := moveThread(tid, g.cpuDir, g.memDir); err != nil {
			if moveThread(tid, home...) == nil {
				runtime.UnlockOSThread()
			} // else the thread ends with this goroutine, still locked
			errc <- err
			return
		}
		err := start()
		if back := moveThread(tid, home...); back != nil {
			// This thread stays in the group: it ends with the goroutine, and with it (the
			// child's parent thread) the child.
			if err == nil {
				_ = cmd.Process.Kill()
				_, _ = cmd.Process.Wait()
			}
			errc <- errors.Join(err, fmt.Errorf("returning the starting thread to its cgroup: %w", back))
			return
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// moveThread writes a thread id to the v1 tasks file of each folder.
func moveThread(tid string, dirs ...string) error {
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "tasks"), []byte(tid), 0o644); err != nil {
			return fmt.Errorf("moving thread %s into cgroup %s: %w", tid, d, err)
		}
	}
	return nil
}
