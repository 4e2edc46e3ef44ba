package supervise

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Procs and the sampler's PSS read this very process through prometheus/procfs.
func TestProcsAndPSSOfThisProcess(t *testing.T) {
	self, ok := Procs()[os.Getpid()]
	if !ok || !self.Live() || self.PPID != os.Getppid() || self.PGID != syscall.Getpgrp() {
		t.Errorf("this process: %+v (found %v), want ppid %d, pgid %d", self, ok, os.Getppid(), syscall.Getpgrp())
	}
	if pss := treePSS(map[int]int64{os.Getpid(): 0}); pss < 1<<20 {
		t.Errorf("PSS of this test process: %d bytes, want at least 1 MiB", pss)
	}
	if uid, err := ProcUID(os.Getpid()); err != nil || uid != os.Getuid() {
		t.Errorf("ProcUID: %d, %v; want %d", uid, err, os.Getuid())
	}
}

// A process tree with one busy child: the sampler sees about one core and some memory,
// counted over the whole tree, not only its root.
func TestSampleTreeCountsDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if kids := descendants(cmd.Process.Pid); len(kids) > 0 {
			for _, k := range kids {
				_ = syscallKill(k)
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	start := time.Now().Add(200 * time.Millisecond)
	u := SampleTree(cmd.Process.Pid, start, start.Add(1500*time.Millisecond), SampleEvery, nil)
	if u.Samples != 6 {
		t.Errorf("%d samples in 1.5 s at %s, want 6", u.Samples, SampleEvery)
	}
	// The root only waits (about 0 cores); its child spins. Counting the child shows as at
	// least a tenth of a core even on this shared, loaded machine, and never above one core.
	if u.CPUMillicores < 100 || u.CPUMillicores > 1100 || u.CPUPeakMillicores < u.CPUMillicores {
		t.Errorf("CPU %d millicores (peak %d) for one busy loop", u.CPUMillicores, u.CPUPeakMillicores)
	}
	if u.MemoryBytes <= 0 || u.MemoryPeakBytes < u.MemoryBytes {
		t.Errorf("memory %d (peak %d) bytes", u.MemoryBytes, u.MemoryPeakBytes)
	}
}

func descendants(root int) []int {
	var out []int
	for p := range treeTicks(root) {
		if p != root {
			out = append(out, p)
		}
	}
	return out
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
