package cgroups

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// On this machine's real cgroups: two CPU-bound processes (a shell and what it forks) under
// a 200m limit use 0.2 cores together, where unlimited they would take two; the memory
// limit is the kernel's and a process past it is killed; nothing is left behind.
func TestRealLimits(t *testing.T) {
	testenv.Long(t)
	h, err := Detect()
	if os.Geteuid() != 0 {
		// Without the privilege the refusal says so plainly; the caller points at --no-limits.
		if !errors.Is(err, ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("this test needs the cpu and memory cgroup controllers (CI and sessions run as root on such a machine): %v", err)
	}
	r, err := h.NewRun("test-limits")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Remove() })
	g, err := r.Add("spin", Limits{MilliCPU: 200, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Applied{QuotaMicros: 20_000, PeriodMicros: 100_000, MemoryBytes: 64 << 20}); g.Applied != want {
		t.Errorf("read back %+v, want %+v", g.Applied, want)
	}
	cmd := exec.Command("sh", "-c", "yes >/dev/null & yes >/dev/null & wait")
	if err := g.Start(cmd, cmd.Start); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); len(pids) < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if pids, err = g.Procs(); err != nil {
			t.Fatal(err)
		}
	}
	if len(pids) != 3 {
		t.Fatalf("processes in the group: %v, want the shell and its two children", pids)
	}
	before, t0 := cpuSeconds(t, pids), time.Now()
	time.Sleep(3 * time.Second)
	cores := (cpuSeconds(t, pids) - before) / time.Since(t0).Seconds()
	// 3 s is 30 periods: the quota allows 0.2 cores, plus at most one period's quota
	// (20 ms / 3 s) of phase and /proc's 10 ms ticks: above 0.23 the quota is not applied.
	// Below 0.2 is a busy shared machine giving it less than its quota, down to 0.1.
	t.Logf("2 CPU-bound processes under 200m: %.3f cores", cores)
	if cores > 0.23 || cores < 0.10 {
		t.Errorf("used %.3f cores under a 200m limit, want 0.10..0.23", cores)
	}
	if th, err := g.Throttling(); err != nil || th.ThrottledPeriods == 0 {
		t.Errorf("throttling %+v (%v): want throttled periods", th, err)
	}

	// Past the memory limit the kernel kills the process (tail keeps a 200 MB line).
	hog, err := r.Add("hog", Limits{MemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	big := exec.Command("sh", "-c", "head -c 200000000 /dev/zero | tail -n 1 >/dev/null")
	if err := hog.Start(big, big.Start); err != nil {
		t.Fatal(err)
	}
	if err := big.Wait(); err == nil {
		t.Error("a process holding 200 MB finished under a 32 MiB limit")
	}

	// Remove kills what is left (the spinning shell) and leaves no cgroup.
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, dir := range []string{h.CPUParent, h.MemoryParent} {
		if _, err := os.Stat(filepath.Join(dir, "gauntlet-local-test-limits-"+strconv.Itoa(os.Getpid()))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cgroup left in %s: %v", dir, err)
		}
	}
}

// cpuSeconds is the user and system time of the processes, from /proc/PID/stat.
func cpuSeconds(t *testing.T, pids []int) float64 {
	t.Helper()
	var sum float64
	for _, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.Stat()
		if err != nil {
			t.Fatal(err)
		}
		sum += st.CPUTime()
	}
	return sum
}

// The v2 start path for real: this machine's unified hierarchy has no cpu or memory
// controller to limit with, but a process started through a v2 group is born in it
// (clone3 with CLONE_INTO_CGROUP), and so is what it forks.
func TestRealV2Start(t *testing.T) {
	testenv.Long(t)
	if os.Geteuid() != 0 {
		return // creating a cgroup needs root; TestRealLimits checks the refusal
	}
	mounts, err := procfs.GetMounts()
	if err != nil {
		t.Fatal(err)
	}
	root := ""
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			root = m.MountPoint
			break
		}
	}
	if root == "" {
		t.Fatal("no cgroup2 mount: this test needs the unified hierarchy (v2 or hybrid)")
	}
	h := NewV2(root)
	name := Prefix + "v2start-" + strconv.Itoa(os.Getpid())
	dir := filepath.Join(root, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Run{host: h, Name: name, dirs: []string{dir}}
	g := &Group{host: h, Name: name, cpuDir: dir, memDir: dir}
	r.groups = []*Group{g}
	defer func() { _ = r.Remove() }()
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := g.Start(cmd, cmd.Start); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		pids, _ = g.Procs()
	}
	if len(pids) != 2 || !slices.Contains(pids, cmd.Process.Pid) {
		t.Errorf("group holds %v, want the shell %d and its sleep", pids, cmd.Process.Pid)
	}
	if mine, _ := os.ReadFile("/proc/self/cgroup"); strings.Contains(string(mine), name) {
		t.Errorf("this process went into the group:\n%s", mine)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind: %v", dir, err)
	}
}
