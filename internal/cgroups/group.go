package cgroups

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Prefix starts the name of every cgroup this package creates.
const Prefix = "gauntlet-local-"

// Run is one run's cgroup ("gauntlet-local-<run>-<pid>"), parent of one group per target.
type Run struct {
	host   *Host
	Name   string
	dirs   []string // the run's folder in each hierarchy (one on v2)
	groups []*Group
}

// Group is one target's cgroup and the limits read back from it.
type Group struct {
	host    *Host
	Name    string
	cpuDir  string
	memDir  string
	Applied Applied
}

// Applied is what the cgroup's files say after writing: the figures to record.
type Applied struct {
	QuotaMicros, PeriodMicros int64 // QuotaMicros 0: no CPU limit
	MemoryBytes               int64 // 0: no memory limit
}

// NewRun creates the run's cgroup, named for gauntlet, the run and this process (two runs
// of one name never share one). On v2 it passes cpu and memory on to the targets' groups.
func (h *Host) NewRun(name string) (*Run, error) {
	r := &Run{host: h, Name: Prefix + name + "-" + strconv.Itoa(os.Getpid())}
	parents := []string{h.CPUParent}
	if h.Version == 1 {
		parents = append(parents, h.MemoryParent)
	}
	for _, p := range parents {
		dir := filepath.Join(p, r.Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			_ = r.Remove()
			return nil, fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		r.dirs = append(r.dirs, dir)
	}
	if h.Version == 2 {
		if err := write(r.dirs[0], "cgroup.subtree_control", "+cpu +memory"); err != nil {
			_ = r.Remove()
			return nil, err
		}
	}
	return r, nil
}

// Add creates the target's group under the run and writes its limits, as the kubelet
// writes a container's: the CFS quota over a 100 ms period, the memory limit in bytes.
func (r *Run) Add(target string, l Limits) (*Group, error) {
	if target == "" || strings.ContainsAny(target, "/\x00") || target == "." || target == ".." {
		return nil, fmt.Errorf("cgroup name %q: not a plain name", target)
	}
	g := &Group{host: r.host, Name: target, cpuDir: filepath.Join(r.dirs[0], target)}
	g.memDir = g.cpuDir
	if r.host.Version == 1 {
		g.memDir = filepath.Join(r.dirs[1], target)
	}
	for _, d := range g.dirs() {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, fmt.Errorf("creating cgroup %s: %w", d, err)
		}
	}
	r.groups = append(r.groups, g)
	quota := QuotaMicros(l.MilliCPU)
	var err error
	if r.host.Version == 1 {
		q := "-1"
		if quota > 0 {
			q = strconv.FormatInt(quota, 10)
		}
		err = errors.Join(write(g.cpuDir, "cpu.cfs_period_us", strconv.Itoa(PeriodMicros)), write(g.cpuDir, "cpu.cfs_quota_us", q))
		if err == nil && l.MemoryBytes > 0 {
			err = write(g.memDir, "memory.limit_in_bytes", strconv.FormatInt(l.MemoryBytes, 10))
		}
	} else {
		q, m := "max", "max"
		if quota > 0 {
			q = strconv.FormatInt(quota, 10)
		}
		if l.MemoryBytes > 0 {
			m = strconv.FormatInt(l.MemoryBytes, 10)
		}
		err = errors.Join(write(g.cpuDir, "cpu.max", q+" "+strconv.Itoa(PeriodMicros)), write(g.memDir, "memory.max", m))
	}
	if err != nil {
		return nil, err
	}
	if g.Applied, err = g.readBack(); err != nil {
		return nil, err
	}
	return g, nil
}

// readBack reads the limits as the kernel holds them (v1 rounds memory to pages).
func (g *Group) readBack() (Applied, error) {
	var a Applied
	if g.host.Version == 1 {
		q, err1 := readInt(g.cpuDir, "cpu.cfs_quota_us")
		p, err2 := readInt(g.cpuDir, "cpu.cfs_period_us")
		m, err3 := readInt(g.memDir, "memory.limit_in_bytes")
		if err := errors.Join(err1, err2, err3); err != nil {
			return a, err
		}
		a = Applied{QuotaMicros: max(q, 0), PeriodMicros: p, MemoryBytes: m}
		if m >= 1<<62 { // v1's "unlimited" is the largest page multiple
			a.MemoryBytes = 0
		}
		return a, nil
	}
	cpu, err := read(g.cpuDir, "cpu.max")
	if err != nil {
		return a, err
	}
	f := strings.Fields(cpu)
	if len(f) != 2 {
		return a, fmt.Errorf("%s: %q: want QUOTA PERIOD", filepath.Join(g.cpuDir, "cpu.max"), cpu)
	}
	if f[0] != "max" {
		if a.QuotaMicros, err = strconv.ParseInt(f[0], 10, 64); err != nil {
			return a, fmt.Errorf("%s: %w", filepath.Join(g.cpuDir, "cpu.max"), err)
		}
	}
	if a.PeriodMicros, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return a, fmt.Errorf("%s: %w", filepath.Join(g.cpuDir, "cpu.max"), err)
	}
	mem, err := read(g.memDir, "memory.max")
	if err != nil {
		return a, err
	}
	if mem != "max" {
		if a.MemoryBytes, err = strconv.ParseInt(mem, 10, 64); err != nil {
			return a, fmt.Errorf("%s: %w", filepath.Join(g.memDir, "memory.max"), err)
		}
	}
	return a, nil
}

// Path is the group's place, for status: "/sys/fs/cgroup/cpu/gauntlet-x-1/go" or, on v1
// with memory elsewhere, both folders.
func (g *Group) Path() string {
	if g.cpuDir == g.memDir {
		return g.cpuDir
	}
	return g.cpuDir + " " + g.memDir
}

func (g *Group) dirs() []string {
	if g.cpuDir == g.memDir {
		return []string{g.cpuDir}
	}
	return []string{g.cpuDir, g.memDir}
}

// Throttling is what the CFS quota did to the group: periods in which it ran out of quota
// and how long it waited, from cpu.stat.
type Throttling struct {
	Periods, ThrottledPeriods int64
	ThrottledMicros           int64
}

// Throttling reads cpu.stat (v1: nr_throttled, throttled_time in ns; v2: throttled_usec).
func (g *Group) Throttling() (Throttling, error) {
	data, err := read(g.cpuDir, "cpu.stat")
	if err != nil {
		return Throttling{}, err
	}
	var t Throttling
	for _, line := range strings.Split(data, "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "nr_periods":
			t.Periods = n
		case "nr_throttled":
			t.ThrottledPeriods = n
		case "throttled_time":
			t.ThrottledMicros = n / 1000
		case "throttled_usec":
			t.ThrottledMicros = n
		}
	}
	return t, nil
}

// Procs are the processes in the group.
func (g *Group) Procs() ([]int, error) {
	var pids []int
	for _, d := range g.dirs() {
		data, err := read(d, "cgroup.procs")
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(data) {
			if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids, nil
}

// Remove kills whatever is still in the run's groups (only processes this run started
// are there), then removes the groups and the run's cgroup. Safe to call twice.
func (r *Run) Remove() error {
	var errs []error
	for _, g := range r.groups {
		errs = append(errs, g.empty(5*time.Second))
		for _, d := range g.dirs() {
			if err := r.host.rmdir(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", d, err))
			}
		}
	}
	r.groups = nil
	for _, d := range r.dirs {
		if err := r.host.rmdir(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", d, err))
		}
	}
	r.dirs = nil
	return errors.Join(errs...)
}

// empty kills the group's processes and waits until none is left.
func (g *Group) empty(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := g.Procs()
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s: processes %v survive SIGKILL", g.Path(), pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Sweep removes the cgroups of earlier runs whose process is gone (a run killed with
// SIGKILL cannot clean up): only "gauntlet-local-*-<pid>" folders (not the lab's gauntlet-lab), only once empty. It returns
// the ones removed.
func (h *Host) Sweep() []string {
	var removed []string
	parents := []string{h.CPUParent}
	if h.MemoryParent != h.CPUParent {
		parents = append(parents, h.MemoryParent)
	}
	for _, p := range parents {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			name := e.Name()
			i := strings.LastIndexByte(name, '-')
			if !e.IsDir() || !strings.HasPrefix(name, Prefix) || i < 0 {
				continue
			}
			pid, err := strconv.Atoi(name[i+1:])
			if err != nil || pid <= 0 || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				continue // not ours by name, or its process still runs
			}
			dir := filepath.Join(p, name)
			children, _ := os.ReadDir(dir)
			for _, c := range children {
				if c.IsDir() {
					_ = h.rmdir(filepath.Join(dir, c.Name()))
				}
			}
			if h.rmdir(dir) == nil {
				removed = append(removed, dir)
			}
		}
	}
	return removed
}

func write(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, filepath.Join(dir, file), err)
	}
	return nil
}

func read(dir, file string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	return strings.TrimSpace(string(data)), err
}

func readInt(dir, file string) (int64, error) {
	s, err := read(dir, file)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Join(dir, file), err)
	}
	return n, nil
}
