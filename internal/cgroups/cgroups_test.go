package cgroups

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

func TestQuotaMicros(t *testing.T) {
	for milli, want := range map[int64]int64{0: 0, 200: 20_000, 1000: 100_000, 2500: 250_000, 5: 1_000, 1: 1_000} {
		if got := QuotaMicros(milli); got != want {
			t.Errorf("QuotaMicros(%dm) = %d µs, want %d (the kubelet's MilliCPUToQuota at a 100 ms period)", milli, got, want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The v2 path (most laptops) writes the kubelet's files, checked against a fake root: the
// run's cgroup passes cpu and memory on, each target's gets cpu.max and memory.max.
func TestV2Files(t *testing.T) {
	root := t.TempDir()
	h := NewV2(root)
	h.rmdir = os.RemoveAll // a fake root's folders hold plain files
	r, err := h.NewRun("demo")
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, "gauntlet-local-demo-"+strconv.Itoa(os.Getpid()))
	if got := readFile(t, filepath.Join(runDir, "cgroup.subtree_control")); got != "+cpu +memory" {
		t.Errorf("subtree_control %q", got)
	}
	g, err := r.Add("go", Limits{MilliCPU: 200, MemoryBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(runDir, "go", "cpu.max")); got != "20000 100000" {
		t.Errorf("cpu.max %q, want \"20000 100000\"", got)
	}
	if got := readFile(t, filepath.Join(runDir, "go", "memory.max")); got != "268435456" {
		t.Errorf("memory.max %q", got)
	}
	if want := (Applied{QuotaMicros: 20_000, PeriodMicros: 100_000, MemoryBytes: 256 << 20}); g.Applied != want {
		t.Errorf("applied %+v, want %+v", g.Applied, want)
	}
	free, err := r.Add("free", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(runDir, "free", "cpu.max")) + "|" + readFile(t, filepath.Join(runDir, "free", "memory.max")); got != "max 100000|max" {
		t.Errorf("no limits: %q", got)
	}
	if free.Applied != (Applied{PeriodMicros: 100_000}) {
		t.Errorf("no limits applied %+v", free.Applied)
	}
	if _, err := r.Add("../escape", Limits{}); err == nil {
		t.Error("a name with a slash was accepted")
	}
	if err := os.WriteFile(filepath.Join(runDir, "go", "cpu.stat"), []byte("usage_usec 9\nnr_periods 50\nnr_throttled 7\nthrottled_usec 1234\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if th, err := g.Throttling(); err != nil || th != (Throttling{Periods: 50, ThrottledPeriods: 7, ThrottledMicros: 1234}) {
		t.Errorf("throttling %+v, %v", th, err)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run cgroup left behind: %v", err)
	}
}

// The v1 files (this machine's layout): quota and period, memory.limit_in_bytes, each in
// its own hierarchy.
func TestV1Files(t *testing.T) {
	cpu, mem := t.TempDir(), t.TempDir()
	h := NewV1(cpu, mem)
	h.rmdir = os.RemoveAll
	r, err := h.NewRun("demo")
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.Add("node", Limits{MilliCPU: 1500, MemoryBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	name := "gauntlet-local-demo-" + strconv.Itoa(os.Getpid())
	got := readFile(t, filepath.Join(cpu, name, "node", "cpu.cfs_quota_us")) + " " + readFile(t, filepath.Join(cpu, name, "node", "cpu.cfs_period_us")) +
		" " + readFile(t, filepath.Join(mem, name, "node", "memory.limit_in_bytes"))
	if got != "150000 100000 1073741824" {
		t.Errorf("quota, period, memory: %q", got)
	}
	if g.Path() != filepath.Join(cpu, name, "node")+" "+filepath.Join(mem, name, "node") {
		t.Errorf("path %q", g.Path())
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{cpu, mem} {
		if left, _ := os.ReadDir(d); len(left) != 0 {
			t.Errorf("%s: left %v", d, left)
		}
	}
}

func TestDetect(t *testing.T) {
	v1 := []*procfs.MountInfo{
		{FSType: "cgroup", MountPoint: "/sys/fs/cgroup/cpu", Root: "/", SuperOptions: map[string]string{"rw": "", "cpu": ""}},
		{FSType: "cgroup", MountPoint: "/sys/fs/cgroup/memory", Root: "/box", SuperOptions: map[string]string{"rw": "", "memory": ""}},
		{FSType: "cgroup2", MountPoint: "/sys/fs/cgroup/unified", Root: "/"},
	}
	own := []procfs.Cgroup{{HierarchyID: 4, Controllers: []string{"memory"}, Path: "/box/api/1"},
		{HierarchyID: 1, Controllers: []string{"cpu"}, Path: "/"}, {HierarchyID: 0, Path: "/"}}
	h, err := detect(v1, own)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 1 || h.CPUParent != "/sys/fs/cgroup/cpu" || h.MemoryParent != "/sys/fs/cgroup/memory/api/1" {
		t.Errorf("hybrid layout: %+v", h)
	}

	root := t.TempDir()
	v2 := []*procfs.MountInfo{{FSType: "cgroup2", MountPoint: root, Root: "/"}}
	if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("cpuset cpu io memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := detect(v2, []procfs.Cgroup{{Path: "/user.slice"}}); err != nil || h.Version != 2 || h.CPUParent != root {
		t.Errorf("v2: %+v, %v", h, err)
	}
	if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("cpu io pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := detect(v2, nil); !errors.Is(err, ErrNoCgroups) || !strings.Contains(err.Error(), "memory") {
		t.Errorf("v2 without memory: %v", err)
	}
	if _, err := detect(nil, nil); !errors.Is(err, ErrNoCgroups) {
		t.Errorf("no cgroups: %v", err)
	}
}

// Sweep removes only gauntlet's cgroups whose process is gone.
func TestSweep(t *testing.T) {
	root := t.TempDir()
	h := NewV2(root)
	h.rmdir = os.Remove // empty folders, as a run killed after its targets leaves them
	dead := "gauntlet-local-old-999999999"
	live := "gauntlet-local-now-" + strconv.Itoa(os.Getpid())
	for _, d := range []string{dead + "/go", live + "/go", "other-999999999", "gauntlet-local-x-notapid", "gauntlet-lab"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removed := h.Sweep()
	if len(removed) != 1 || removed[0] != filepath.Join(root, dead) {
		t.Errorf("removed %v, want only %s", removed, dead)
	}
	left, _ := os.ReadDir(root)
	if len(left) != 4 {
		t.Errorf("left %v", left)
	}
}
