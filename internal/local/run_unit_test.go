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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
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

func TestReportAndTable(t *testing.T) {
	cpu := benchv1.Stat{Median: 420, Min: 400, Max: 450}
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: "open"},
		Scenarios: []benchv1.Scenario{{Name: "ping"}}}}
	run.Name = "r"
	run.Status.Results = []benchv1.ResultRow{
		{Target: "go", Scenario: "ping", LoadPoint: 400, Repetitions: 3, Valid: true, CPUMillicores: &cpu,
			AchievedMilliRPS: benchv1.Stat{Median: 400100}, P50Micros: benchv1.Stat{Median: 300, Min: 290, Max: 320},
			P99Micros: benchv1.Stat{Median: 2500}, MaxMicros: benchv1.Stat{Median: 9000}},
		{Target: "<b>x</b>", Scenario: "ping", LoadPoint: 400, Repetitions: 1, Flags: []string{"GeneratorBound"},
			AchievedMilliRPS: benchv1.Stat{Median: 350000}},
		// The wire is the record; k6's p99 is under 2x its floor and is starred.
		{Target: "nginx", Scenario: "ping", LoadPoint: 400, Repetitions: 1, Valid: true, LatencySource: benchv1.LatencyWire,
			AchievedMilliRPS: benchv1.Stat{Median: 400000}, P50Micros: benchv1.Stat{Median: 221}, P99Micros: benchv1.Stat{Median: 4900},
			Wire:           &benchv1.LatencyStats{P50Micros: benchv1.Stat{Median: 91}, P99Micros: benchv1.Stat{Median: 532}},
			GeneratorFloor: &benchv1.GeneratorFloor{P50Micros: 180, P99Micros: 3100}},
	}
	run.Status.Placement = &benchv1.Placement{GeneratorCPUs: "0", TargetCPUs: "1", Message: "k6 on CPUs 0; targets on 1"}
	run.Status.Trials = []benchv1.Trial{{Name: "nginx.home.400.r1", Target: "nginx", Scenario: "home",
		Phase: benchv1.TrialSkipped, Message: "nginx does not implement devices-status"}}
	now := metav1.Now() // taken with time.Now: carries a monotonic reading
	run.Status.StartedAt, run.Status.FinishedAt = &now, &now
	html, err := Report(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d charts, want the percentile spectrum, latency, throughput and CPU (memory was never sampled: no chart)", n)
	}
	if strings.Contains(page, "m=+") || !strings.Contains(page, "Started "+now.UTC().Format("2006-01-02 15:04:05")+" UTC") {
		t.Error("the header's times must be plain UTC timestamps, without Go's monotonic clock suffix")
	}
	// The spectrum overlays the targets at 400/s, median dots with min–max bars (go's p50 spread).
	if !strings.Contains(page, "ping @ 400/s: latency by percentile") || !strings.Contains(page, "go @ 400/s: min 290µs, max 320µs") {
		t.Error("no percentile spectrum with error bars")
	}
	for _, want := range []string{"<td>wire</td><td>91µs</td>", "<td>4.90ms*</td><td>180µs–3.10ms</td>", "generator floor 180µs–3.10ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>x</b>") || strings.Contains(page, "src=\"http") {
		t.Error("a target name reached the page unescaped, or the page loads something")
	}
	var b bytes.Buffer
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"400/s", "400.1", "300µs", "2.50ms", "0.42", "NO: GeneratorBound",
		"skipped nginx/home: nginx does not implement devices-status",
		"wire  91µs", "532µs", "221µs   4.90ms*  3.10ms", "*: k6's p99 is under 2x the generator floor", "CPUs: k6 on CPUs 0; targets on 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// A row whose repetitions all failed has no figures: it prints "–", never zeros that read as a
// measurement, and it cannot be the headline.
func TestUnmeasuredRowPrintsNoFigures(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: "closed"},
		Scenarios: []benchv1.Scenario{{Name: "hello"}}}}
	run.Name = "r"
	run.Status.Results = []benchv1.ResultRow{
		{Target: "flask", Scenario: "hello", LoadPoint: 100, Repetitions: 0, Flags: []string{"FailedRepetitions"},
			Message: "repetition 1 failed: not timed"},
		{Target: "node", Scenario: "hello", LoadPoint: 100, Repetitions: 1, Valid: true,
			AchievedMilliRPS: benchv1.Stat{Median: 5_000_000}, P99Micros: benchv1.Stat{Median: 40_000}},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	var flaskLine string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "flask") {
			flaskLine = l
		}
	}
	if flaskLine == "" || strings.Count(flaskLine, NoFigure) != 13 || strings.Contains(flaskLine, "0µs") || strings.Contains(flaskLine, "0.0 ") {
		t.Errorf("unmeasured row should show %s for its 13 figures and no zeros:\n%s", NoFigure, b.String())
	}
	html, err := Report(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	flaskRow := page[strings.Index(page, "<td>flask</td>"):]
	flaskRow = flaskRow[:strings.Index(flaskRow, "</tr>")]
	if strings.Contains(flaskRow, "0µs") || strings.Count(flaskRow, "<td>"+NoFigure+"</td>") != 13 {
		t.Errorf("report: the unmeasured row should show %s, not zeros", NoFigure)
	}
	if h := results.Headline(run.Status.Results); !strings.Contains(h, "node") {
		t.Errorf("headline %q should name the measured row only", h)
	}
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
