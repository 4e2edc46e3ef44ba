package local

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// environment fingerprints this machine and the targets' runtimes for status.environment: a
// comparison with a run made on another machine or runtime is flagged, not called a
// regression. What cannot be read is left empty.
func environment(run *benchv1.BenchmarkRun, presets map[string]*preset.Preset) *benchv1.Environment {
	node := benchv1.NodeFingerprint{Role: "Both", Architecture: runtime.GOARCH}
	node.Name, _ = os.Hostname()
	node.CPUModel, node.CPUs = cpuModel()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		node.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	node.OSImage = osRelease("/etc/os-release")
	env := &benchv1.Environment{Mode: "Local", Nodes: []benchv1.NodeFingerprint{node}}
	for _, t := range run.Spec.Targets {
		fp := benchv1.ImageFingerprint{Target: t.Name}
		if p := presets[t.Preset]; p != nil {
			fp.Runtime = strings.TrimSpace(p.Runtime.Name + " " + p.Runtime.Version)
		}
		env.Images = append(env.Images, fp)
	}
	return env
}

// osRelease is os-release(5)'s PRETTY_NAME, "" when absent.
func osRelease(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}
