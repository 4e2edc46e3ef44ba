package local

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

func TestScaleLoad(t *testing.T) {
	spec := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Rates: []int32{50000, 10000, 20}}}
	if err := transform.ScaleLoad(&spec, 0.02); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1000, 200, 1}; !slices.Equal(spec.Load.Rates, want) { // 0.4 rounds up to the floor of 1
		t.Errorf("rates %v, want %v", spec.Load.Rates, want)
	}
	searching := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Search: &benchv1.Search{Start: 100, MaxRate: 1_000_000}}}
	if err := transform.ScaleLoad(&searching, 0.02); err != nil || searching.Load.Search.Start != 2 || searching.Load.Search.MaxRate != 20000 {
		t.Errorf("search: %+v %v", searching.Load.Search, err)
	}
	closed := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: "closed", Connections: []int32{10, 12}}}
	err := transform.ScaleLoad(&closed, 0.1)
	if err == nil || !strings.Contains(err.Error(), "spec.load.connections[0] = 10 and spec.load.connections[1] = 12 both to 1") {
		t.Errorf("colliding points: %v", err)
	}
	for _, f := range []float64{0, -1} {
		if err := transform.ScaleLoad(&spec, f); err == nil || !strings.Contains(err.Error(), "--scale") {
			t.Errorf("scale %v: %v", f, err)
		}
	}
	if transform.FormatScale(0.02) != "0.02" {
		t.Errorf("transform.FormatScale(0.02) = %s", transform.FormatScale(0.02))
	}
}

// Procs and the sampler's PSS read this very process through prometheus/procfs.
func TestProcsAndPSSOfThisProcess(t *testing.T) {
	self, ok := Procs()[os.Getpid()]
	if !ok || !self.Live() || self.PPID != os.Getppid() || self.PGID != syscall.Getpgrp() {
		t.Errorf("this process: %+v (found %v), want ppid %d, pgid %d", self, ok, os.Getppid(), syscall.Getpgrp())
	}
	if pss := treePSS(map[int]int64{os.Getpid(): 0}); pss < 1<<20 {
		t.Errorf("PSS of this test process: %d bytes, want at least 1 MiB", pss)
	}
	if uid, err := procUid(os.Getpid()); err != nil || uid != os.Getuid() {
		t.Errorf("procUid: %d, %v; want %d", uid, err, os.Getuid())
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

func TestMarkerWriterFindsASplitMarker(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "k6.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := newMarkerWriter(f, loadStartsMarker)
	_, _ = m.Write([]byte("time=... level=info msg=\"gauntlet: load "))
	select {
	case <-m.seen:
		t.Fatal("marker seen before it was complete")
	default:
	}
	_, _ = m.Write([]byte("starts\" source=console\n"))
	select {
	case <-m.seen:
	default:
		t.Fatal("marker split over two writes was missed")
	}
	data, _ := os.ReadFile(f.Name())
	if !bytes.Contains(data, []byte(loadStartsMarker)) {
		t.Error("the log file did not receive k6's output")
	}
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
