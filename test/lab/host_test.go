//go:build lab

package lab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// hostState is what the lab may leave behind on this machine: the whole host-wide network
// configuration (links, namespaces, iptables and nftables rules) and, for what other users
// of the machine also change, only the entries that carry the lab's marks.
type hostState struct {
	Links       []string // ip -o link: every interface of the host's namespace
	Netns       []string // ip netns list
	Iptables    []string // iptables-save, counters dropped
	Nftables    []string // nft list ruleset
	LabMounts   []string // mount points under the lab's state directory or its netns file
	LabCgroups  []string // <hierarchy>/gauntlet-lab directories
	LabProcs    []string // processes running a lab binary or inside the lab's network namespace
	OwnerMarker bool     // /run/gauntlet-lab.owner
	HostFiles   []string // what lies under the host paths the lab's components write to
	Tunables    []string // the host-wide kernel settings the kubelet sets on start
	NetnsMounts []string // mounts at /run/netns (ip netns add makes one)
}

// kubeletTunables are the sysctls the kubelet sets (container_manager_linux.go,
// setupKernelTunables); down.sh puts back what was there before.
var kubeletTunables = []string{"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic",
	"kernel/panic_on_oops", "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"}

func captureHost(root, labNetnsID string) (hostState, error) {
	var s hostState
	var err error
	if s.Links, err = lines("ip", "-o", "link", "show"); err != nil {
		return s, err
	}
	for i, l := range s.Links { // keep "N: name@peer:" only; flags and counters move
		if f := strings.Fields(l); len(f) > 1 {
			s.Links[i] = strings.TrimSuffix(f[1], ":")
		}
	}
	if s.Netns, err = lines("ip", "netns", "list"); err != nil {
		return s, err
	}
	if s.Iptables, err = lines("iptables-save"); err != nil {
		return s, err
	}
	s.Iptables = dropComments(s.Iptables)
	if s.Nftables, err = lines("nft", "list", "ruleset"); err != nil {
		return s, err
	}
	state := filepath.Join(root, ".cache", "lab") + "/"
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return s, err
	}
	for _, l := range strings.Split(string(mi), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && (strings.HasPrefix(f[4], state) || f[4] == "/run/netns/gauntlet-lab") {
			s.LabMounts = append(s.LabMounts, f[4])
		}
		if len(f) > 4 && f[4] == "/run/netns" {
			s.NetnsMounts = append(s.NetnsMounts, f[4])
		}
	}
	for _, k := range kubeletTunables {
		v, err := os.ReadFile("/proc/sys/" + k)
		if err != nil {
			return s, err
		}
		s.Tunables = append(s.Tunables, k+"="+strings.TrimSpace(string(v)))
	}
	cg, _ := filepath.Glob("/sys/fs/cgroup/*/gauntlet-lab")
	s.LabCgroups = cg
	s.LabProcs = labProcesses(root, labNetnsID)
	_, err = os.Stat("/run/gauntlet-lab.owner")
	s.OwnerMarker = err == nil
	// containerd's cgroup for containers outside the CRI.
	k8sio, _ := filepath.Glob("/sys/fs/cgroup/*/k8s.io")
	s.HostFiles = append(s.HostFiles, k8sio...)
	for _, dir := range []string{"/var/log/containers", "/var/log/pods", "/var/lib/cni", "/run/containerd", "/var/lib/kubelet", "/run/mount", "/etc/cni", "/run/netns"} {
		_ = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
			if err == nil {
				s.HostFiles = append(s.HostFiles, path)
			}
			return nil
		})
	}
	return s, nil
}

// labProcesses lists processes that run a binary of bin/lab or name the lab's state
// directory (its kube-apiserver, etcd, containerd and shims all do), or that sit in the
// lab's network namespace.
func labProcesses(root, labNetnsID string) []string {
	var out []string
	pids, _ := filepath.Glob("/proc/[0-9]*")
	marks := []string{filepath.Join(root, "bin", "lab"), filepath.Join(root, ".cache", "lab")}
	for _, p := range pids {
		raw, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		cmd := strings.ReplaceAll(strings.TrimRight(string(raw), "\x00"), "\x00", " ")
		ns, _ := os.Readlink(filepath.Join(p, "ns", "net"))
		hit := labNetnsID != "" && ns == labNetnsID
		for _, m := range marks {
			hit = hit || strings.Contains(cmd, m)
		}
		if hit && !strings.Contains(cmd, "go test") && !strings.Contains(cmd, "lab.test") {
			out = append(out, fmt.Sprintf("%s %s", filepath.Base(p), cmd))
		}
	}
	sort.Strings(out)
	return out
}

func lines(name string, args ...string) ([]string, error) {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	var ls []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			ls = append(ls, t)
		}
	}
	return ls, nil
}

func dropComments(ls []string) []string {
	var out []string
	for _, l := range ls {
		if strings.HasPrefix(l, "#") {
			continue
		}
		// Chain policies carry packet counters: [0:0].
		if i := strings.LastIndex(l, " ["); strings.HasPrefix(l, ":") && i > 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return out
}

// diffHost names every difference between two captures, and anything of the lab's left.
func diffHost(before, after hostState) []string {
	var d []string
	cmp := func(what string, a, b []string) {
		if x, y := strings.Join(a, "\n"), strings.Join(b, "\n"); x != y {
			d = append(d, fmt.Sprintf("%s changed:\n--- before\n%s\n--- after\n%s", what, x, y))
		}
	}
	cmp("network interfaces", before.Links, after.Links)
	cmp("network namespaces", before.Netns, after.Netns)
	cmp("iptables rules", before.Iptables, after.Iptables)
	cmp("nftables ruleset", before.Nftables, after.Nftables)
	cmp("files under the kubelet's, CNI's and containerd's host paths", before.HostFiles, after.HostFiles)
	cmp("kernel settings the kubelet sets", before.Tunables, after.Tunables)
	cmp("mounts at /run/netns", before.NetnsMounts, after.NetnsMounts)
	for what, left := range map[string][]string{"mounts": after.LabMounts, "cgroups": after.LabCgroups, "processes": after.LabProcs} {
		if len(left) > 0 {
			d = append(d, fmt.Sprintf("lab %s left behind:\n%s", what, strings.Join(left, "\n")))
		}
	}
	if after.OwnerMarker {
		d = append(d, "/run/gauntlet-lab.owner left behind")
	}
	sort.Strings(d)
	return d
}
