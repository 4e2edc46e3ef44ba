// Package cgroups enforces a container's CPU and memory limits on a local process the way
// the kubelet does: a CFS bandwidth quota (cpu.cfs_quota_us on cgroup v1, cpu.max on v2,
// period 100 ms) and a memory limit (memory.limit_in_bytes, memory.max), in cgroups this
// package creates and removes. It never writes to a cgroup it did not create.
package cgroups

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
)

// PeriodMicros is the CFS period, the kubelet's default (--cpu-cfs-quota-period).
const PeriodMicros = 100_000

// minQuotaMicros is the smallest quota the kubelet writes (and the kernel accepts).
const minQuotaMicros = 1_000

// QuotaMicros is the CFS quota per PeriodMicros for a CPU limit in millicores, as the
// kubelet's MilliCPUToQuota computes it; 0 means no limit.
func QuotaMicros(milliCPU int64) int64 {
	if milliCPU <= 0 {
		return 0
	}
	return max(milliCPU*PeriodMicros/1000, minQuotaMicros)
}

// Limits are a container's limits: millicores and bytes, 0 for none.
type Limits struct {
	MilliCPU    int64
	MemoryBytes int64
}

// Version is the cgroup API: 1 (one hierarchy per controller) or 2 (unified).
type Version int

// Errors that say why limits cannot be enforced here; callers point at --no-limits.
var (
	ErrNoPrivilege = errors.New("creating cgroups needs root")
	ErrNoCgroups   = errors.New("no cgroup with both the cpu and memory controllers")
)

// Host is where this machine's cgroups are and where this package creates its own.
type Host struct {
	Version Version
	// CPUParent and MemoryParent are the folders the run's cgroups are created in: on v1,
	// this process's own cgroup in the cpu and in the memory hierarchy (so the targets stay
	// within whatever limits this process is under); on v2, the unified hierarchy's root,
	// where cpu and memory can be delegated (a cgroup with processes cannot pass them on).
	CPUParent, MemoryParent string
	// rmdir removes an empty cgroup (a fake root in tests holds plain files).
	rmdir func(string) error
}

// NewV1 is a cgroup v1 host whose run cgroups go under cpuParent and memoryParent.
func NewV1(cpuParent, memoryParent string) *Host {
	return &Host{Version: 1, CPUParent: cpuParent, MemoryParent: memoryParent, rmdir: os.Remove}
}

// NewV2 is a cgroup v2 host whose run cgroups go under root (the unified hierarchy's mount).
func NewV2(root string) *Host {
	return &Host{Version: 2, CPUParent: root, MemoryParent: root, rmdir: os.Remove}
}

// Detect finds the cpu and memory controllers from /proc/self/mountinfo and
// /proc/self/cgroup: v1 when both have a hierarchy of their own (this machine's hybrid
// layout included), else v2 when its root offers both. Creating cgroups needs root.
func Detect() (*Host, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w (running as uid %d)", ErrNoPrivilege, os.Geteuid())
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	mounts, err := fs.GetMounts()
	if err != nil {
		return nil, fmt.Errorf("reading mounts: %w", err)
	}
	self, err := fs.Self()
	if err != nil {
		return nil, err
	}
	own, err := self.Cgroups()
	if err != nil {
		return nil, fmt.Errorf("reading /proc/self/cgroup: %w", err)
	}
	return detect(mounts, own)
}

func detect(mounts []*procfs.MountInfo, own []procfs.Cgroup) (*Host, error) {
	v1 := map[string]string{}
	var unified string
	for _, m := range mounts {
		switch m.FSType {
		case "cgroup":
			for _, ctrl := range []string{"cpu", "memory"} {
				if _, ok := m.SuperOptions[ctrl]; ok {
					if dir, ok := ownDir(m, own, ctrl); ok {
						v1[ctrl] = dir
					}
				}
			}
		case "cgroup2":
			if unified == "" {
				unified = m.MountPoint
			}
		}
	}
	if v1["cpu"] != "" && v1["memory"] != "" {
		return NewV1(v1["cpu"], v1["memory"]), nil
	}
	if unified == "" {
		return nil, fmt.Errorf("%w: no cgroup v1 cpu and memory hierarchies and no cgroup2 mount", ErrNoCgroups)
	}
	data, err := os.ReadFile(filepath.Join(unified, "cgroup.subtree_control"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCgroups, err)
	}
	have := strings.Fields(string(data))
	for _, ctrl := range []string{"cpu", "memory"} {
		if !slices.Contains(have, ctrl) {
			return nil, fmt.Errorf("%w: %s/cgroup.subtree_control enables %q, not %s (gauntlet does not change a cgroup it did not create; systemd enables both)",
				ErrNoCgroups, unified, strings.Join(have, " "), ctrl)
		}
	}
	return NewV2(unified), nil
}

// ownDir is this process's cgroup folder in the v1 hierarchy m, which holds ctrl.
func ownDir(m *procfs.MountInfo, own []procfs.Cgroup, ctrl string) (string, bool) {
	for _, c := range own {
		if c.HierarchyID == 0 || !slices.Contains(c.Controllers, ctrl) {
			continue
		}
		// The mount may show a sub-tree of the hierarchy (a container's): the path is
		// relative to the hierarchy's root, the folder to the mount's.
		rel, ok := strings.CutPrefix(c.Path, m.Root)
		if !ok {
			return "", false
		}
		return filepath.Join(m.MountPoint, rel), true
	}
	return "", false
}

func (h *Host) String() string {
	if h.Version == 1 {
		return fmt.Sprintf("cgroup v1 (cpu under %s, memory under %s)", h.CPUParent, h.MemoryParent)
	}
	return fmt.Sprintf("cgroup v2 (under %s)", h.CPUParent)
}
