package metrics

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

const mib = 1 << 20

// cadvisorPod describes one container's synthetic cAdvisor series around a 120 s window
// scraped every 15 s: CPU use per interval (cores) and working set per scrape (bytes).
type cadvisorPod struct {
	namespace, pod, container string
	podLevel                  bool      // the pod's own cgroup: no container, no image
	cpuBefore, cpuAfter       float64   // every interval outside the window
	cpu                       []float64 // the 8 intervals inside the window
	memBefore, memAfter       float64
	mem                       []float64 // the 9 scrapes from start to end, both included
	// CFS periods and throttled periods per interval inside the window (outside it: twice
	// as many); no CFS series when periods is 0, as for a container without a CPU quota.
	periods, throttled float64
}

// series renders the counter and the gauge with the labels the kubelet's cAdvisor
// endpoint carries, from 4 scrapes before the window to 4 after it.
func (c cadvisorPod) series(start time.Time, scrape time.Duration) []series {
	labels := func(name string) map[string]string {
		l := map[string]string{"__name__": name, "namespace": c.namespace, "pod": c.pod, "container": c.container,
			"id": "/kubepods/pod-" + c.pod + "/" + c.container, "image": "registry.local/" + c.container + ":1",
			"job": "kubelet", "metrics_path": "/metrics/cadvisor", "instance": "10.0.0.5:10250", "node": "amd-1"}
		if c.podLevel {
			l["id"], l["image"] = "/kubepods/pod-"+c.pod, ""
		}
		return l
	}
	cpu, mem := series{Labels: labels(cpuSeconds)}, series{Labels: labels(workingSet)}
	periods, throttled := series{Labels: labels(cfsPeriods)}, series{Labels: labels(cfsThrottl)}
	used := 1000.0 // CPU seconds the container used before this excerpt
	ran, waited := 5000.0, 700.0
	for i := -4; i <= len(c.cpu)+4; i++ {
		at := start.Add(time.Duration(i) * scrape)
		if i > -4 { // the interval that ends at this scrape
			cores := c.cpuBefore
			if i > len(c.cpu) {
				cores = c.cpuAfter
			} else if i > 0 {
				cores = c.cpu[i-1]
			}
			used += cores * scrape.Seconds()
		}
		bytes := c.memBefore
		if i > len(c.mem)-1 {
			bytes = c.memAfter
		} else if i >= 0 {
			bytes = c.mem[i]
		}
		cpu.Samples = append(cpu.Samples, sample{At: at, V: used})
		mem.Samples = append(mem.Samples, sample{At: at, V: bytes})
		if i > -4 {
			k := 1.0
			if i <= 0 || i > len(c.cpu) {
				k = 2
			}
			ran, waited = ran+k*c.periods, waited+k*c.throttled
		}
		periods.Samples = append(periods.Samples, sample{At: at, V: ran})
		throttled.Samples = append(throttled.Samples, sample{At: at, V: waited})
	}
	if c.periods == 0 {
		return []series{cpu, mem}
	}
	return []series{cpu, mem, periods, throttled}
}

func flat(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestResourcesFromCAdvisor(t *testing.T) {
	testenv.Long(t)
	const scrape = 15 * time.Second
	// A window in the past, on scrape boundaries, as the kubelet's scrapes would be.
	end := time.Now().Truncate(scrape).Add(-10 * time.Minute)
	start := end.Add(-120 * time.Second)

	appA := cadvisorPod{namespace: "bench", pod: "gauntlet-go-6b7c9-x2x4q", container: "app",
		cpuBefore: 3, cpuAfter: 4, cpu: []float64{0.5, 0.75, 1.25, 0.5, 0.25, 1, 0.75, 0.5},
		memBefore: 1024 * mib, memAfter: 2048 * mib,
		mem:     []float64{200 * mib, 210 * mib, 230 * mib, 260 * mib, 250 * mib, 240 * mib, 245 * mib, 250 * mib, 255 * mib},
		periods: 150, throttled: 40}
	appB := cadvisorPod{namespace: "bench", pod: "gauntlet-go-6b7c9-kd8wz", container: "app",
		cpuBefore: 3, cpuAfter: 4, cpu: []float64{0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25},
		memBefore: 1024 * mib, memAfter: 2048 * mib,
		mem: []float64{150 * mib, 150 * mib, 150 * mib, 180 * mib, 150 * mib, 150 * mib, 150 * mib, 150 * mib, 150 * mib}}
	// What must not count: the pause container, the pod-level cgroup (which repeats the
	// app's use), another target's pod in the namespace, the same pod name elsewhere.
	noise := func(ns, pod, container string, cores, bytes float64) cadvisorPod {
		return cadvisorPod{namespace: ns, pod: pod, container: container, cpuBefore: cores, cpuAfter: cores,
			cpu: flat(8, cores), memBefore: bytes, memAfter: bytes, mem: flat(9, bytes), periods: 100, throttled: 100}
	}
	var all []series
	for _, c := range []cadvisorPod{appA, appB,
		noise("bench", appA.pod, "POD", 0.01, 1*mib),
		noise("bench", appA.pod, "", 1, 300*mib),
		noise("bench", "gauntlet-node-5f6d7-abcde", "app", 2, 500*mib),
		noise("other", appA.pod, "app", 2, 500*mib),
	} {
		all = append(all, c.series(start, scrape)...)
	}
	pushSeries(t, all)

	r := newTestReader(t)
	r.ScrapeInterval = scrape
	q := TrialQuery{Start: start, End: end, Namespace: "bench", PodRegex: "gauntlet-go-[a-z0-9]+-[a-z0-9]+"}
	var m benchv1.Measurement
	if _, err := r.Resources(context.Background(), q, &m); err != nil {
		t.Fatal(err)
	}
	// CPU: (5.5 + 2.25) core-intervals of 15 s over 120 s = 0.96875 cores; the busiest
	// interval is the third: 1.25 + 0.5 cores.
	// Memory: the 9 scrapes' sums (350, 360, 380, 440, 400, 390, 395, 400, 405 MiB).
	// CFS: pod A's 8 intervals of 150 periods, 40 throttled; pod B has no quota.
	want := benchv1.Measurement{CPUMillicores: 969, CPUPeakMillicores: 1750,
		MemoryBytes: int64(math.Round(3520.0 * mib / 9)), MemoryPeakBytes: 440 * mib, CPUPeriods: 1200, CPUThrottledPeriods: 320}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %+v\nwant %+v", m, want)
	}
	t.Logf("cpu mean %d m, peak %d m; memory mean %d B, peak %d B", m.CPUMillicores, m.CPUPeakMillicores, m.MemoryBytes, m.MemoryPeakBytes)

	// One pod alone, by an exact name: its own figures.
	q.PodRegex = appB.pod
	m = benchv1.Measurement{}
	if _, err := r.Resources(context.Background(), q, &m); err != nil {
		t.Fatal(err)
	}
	if want := (benchv1.Measurement{CPUMillicores: 281, CPUPeakMillicores: 500, MemoryBytes: int64(math.Round(1380.0 * mib / 9)), MemoryPeakBytes: 180 * mib}); !reflect.DeepEqual(m, want) {
		t.Errorf("pod %s: got %+v, want %+v", appB.pod, m, want)
	}
}

// When cAdvisor reports a target pod's cgroup but not its container's (as the kubelet's does
// now and then for a container created under load), the pod's cgroup is read instead,
// without the pause container.
func TestResourcesFallBackToThePodCgroup(t *testing.T) {
	testenv.Long(t)
	const scrape = 15 * time.Second
	end := time.Now().Truncate(scrape).Add(-20 * time.Minute)
	start := end.Add(-120 * time.Second)
	pod := "gauntlet-py-7d8e9-q1w2e"
	level := cadvisorPod{namespace: "fallback", pod: pod, podLevel: true, cpuBefore: 2, cpuAfter: 2,
		cpu: flat(8, 0.5), memBefore: 50 * mib, memAfter: 50 * mib, mem: flat(9, 100*mib)}
	pause := cadvisorPod{namespace: "fallback", pod: pod, container: "", cpuBefore: 0.01, cpuAfter: 0.01,
		cpu: flat(8, 0.01), memBefore: mib, memAfter: mib, mem: flat(9, mib)}
	pushSeries(t, append(level.series(start, scrape), pause.series(start, scrape)...))
	r := newTestReader(t)
	r.ScrapeInterval = scrape
	var m benchv1.Measurement
	q := TrialQuery{Start: start, End: end, Namespace: "fallback", PodRegex: "gauntlet-py-[a-z0-9]+-[a-z0-9]+"}
	if _, err := r.Resources(context.Background(), q, &m); err != nil {
		t.Fatal(err)
	}
	if want := (benchv1.Measurement{CPUMillicores: 500, CPUPeakMillicores: 500, MemoryBytes: 100 * mib, MemoryPeakBytes: 100 * mib}); !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v (the pod cgroup, without the pause container)", m, want)
	}
}

// A loaded node's cAdvisor stamps a container's counters 17-19 s apart, so a 30 s window
// can hold a single sample: the CPU is then read from the samples just around the window
// (within HousekeepingPad), from each series' first and last sample there, and the note
// says so. Here 2 s before, once inside, 6 s after.
func TestResourcesWidenPastSparseSamples(t *testing.T) {
	testenv.Long(t)
	end := time.Now().Truncate(time.Second).Add(-20 * time.Minute)
	start := end.Add(-30 * time.Second)
	labels := func(name, pod string) map[string]string {
		return map[string]string{"__name__": name, "namespace": "sparse", "pod": pod, "container": "app"}
	}
	at := []time.Time{start.Add(-2 * time.Second), start.Add(17 * time.Second), end.Add(6 * time.Second)}
	cpu := func(pod string, v ...float64) []series {
		c, mem := series{Labels: labels(cpuSeconds, pod)}, series{Labels: labels(workingSet, pod)}
		for i, t := range at {
			c.Samples = append(c.Samples, sample{At: t, V: v[i]})
			mem.Samples = append(mem.Samples, sample{At: t, V: 64 * mib})
		}
		return []series{c, mem}
	}
	all := append(cpu("gauntlet-go-1a2b3-q7x2z", 10, 20, 30.8), cpu("gauntlet-go-ping-100-r1-abc-1-zzzzz", 5, 8, 10.7)...)
	// A second runner whose container started after the padded range began: sampled 12 s
	// into the window and 5 s past it, at 800m. rate() over the padded 70 s would divide
	// its increase by all 70 s and read about 570m; the slope reads 800m.
	late := series{Labels: labels(cpuSeconds, "gauntlet-go-ping-100-r1-abc-2-yyyyy")}
	late.Samples = []sample{{At: start.Add(12 * time.Second), V: 6}, {At: end.Add(5 * time.Second), V: 6 + 0.8*23}}
	pushSeries(t, append(all, late))
	r := newTestReader(t)
	r.ScrapeInterval = 5 * time.Second
	q := TrialQuery{Start: start, End: end, Namespace: "sparse", PodRegex: "gauntlet-go-[a-z0-9]+-[a-z0-9]+",
		RunnerPodRegex: "gauntlet-go-ping-100-r1-abc-[0-9][a-z0-9-]*"}
	var m benchv1.Measurement
	note, err := r.Resources(context.Background(), q, &m)
	if err != nil {
		t.Fatal(err)
	}
	// The slope between the samples around the window: 20.8 core-seconds over 38 s.
	if want := int64(547); m.CPUMillicores < want*98/100 || m.CPUMillicores > want*102/100 || !strings.Contains(note, "within 20s of the 30s window") {
		t.Errorf("cpu %d m (want about %d), note %q", m.CPUMillicores, want, note)
	}
	note, err = r.Generator(context.Background(), q, &m)
	if want := int64(800); err != nil || m.GeneratorCPUMillicores < want*98/100 || m.GeneratorCPUMillicores > want*102/100 || !strings.HasPrefix(note, "runner CPU read") {
		t.Errorf("runner cpu %d m (want about %d), note %q, err %v", m.GeneratorCPUMillicores, want, note, err)
	}
}

// A runner's container is gone soon after the load stops: its last sample can fall well
// before the window's end. The read is the slope between its samples inside the window
// (49m here); rate() over the window would extrapolate only half an interval past the last
// sample and divide by all 30 s (about 34m), which once let a busy runner's row pass as
// valid.
func TestRunnerSeriesEndingInsideTheWindow(t *testing.T) {
	testenv.Long(t)
	end := time.Now().Truncate(time.Second).Add(-25 * time.Minute)
	start := end.Add(-30 * time.Second)
	got, note := runnerRead(t, "ending", start, end, []sample{{At: start.Add(-14 * time.Second), V: 0.0308},
		{At: start.Add(3 * time.Second), V: 0.3646}, {At: start.Add(15 * time.Second), V: 0.3646 + 0.049*12}})
	if want := int64(49); got < want-1 || got > want+1 || note != "" {
		t.Errorf("runner cpu %d m (want %d), note %q", got, want, note)
	}
}

// With a single sample inside the window, the read spans the nearest sample on each side
// of it, not the padded range's first: here a runner idle until 2 s before the window (two
// samples then), at 600m after, and gone before the next sample. The nearest samples give
// 533m; the range's first and last, 300m.
func TestRunnerSingleSampleReadFromTheNearest(t *testing.T) {
	testenv.Long(t)
	end := time.Now().Truncate(time.Second).Add(-30 * time.Minute)
	start := end.Add(-30 * time.Second)
	got, note := runnerRead(t, "nearest", start, end, []sample{{At: start.Add(-18 * time.Second), V: 1},
		{At: start.Add(-4 * time.Second), V: 1}, {At: start.Add(14 * time.Second), V: 1 + 0.6*16}})
	if want := int64(533); got < want-2 || got > want+2 || !strings.HasPrefix(note, "runner CPU read from") {
		t.Errorf("runner cpu %d m (want %d), note %q", got, want, note)
	}
}

// runnerRead pushes one runner pod's CPU counter samples into namespace ns and returns the
// generator CPU the reader finds for the window, and its note.
func runnerRead(t *testing.T, ns string, start, end time.Time, samples []sample) (int64, string) {
	t.Helper()
	runner := series{Labels: map[string]string{"__name__": cpuSeconds, "namespace": ns, "pod": "run-go-1-a1b2c", "container": "k6"}, Samples: samples}
	pushSeries(t, []series{runner})
	r := newTestReader(t)
	r.ScrapeInterval = 5 * time.Second
	var m benchv1.Measurement
	note, err := r.Generator(context.Background(), TrialQuery{Start: start, End: end, Namespace: ns, RunnerPodRegex: "run-go-1-.*"}, &m)
	if err != nil {
		t.Fatal(err)
	}
	return m.GeneratorCPUMillicores, note
}

func TestResourcesRefusesWhatItCannotMeasure(t *testing.T) {
	testenv.Long(t)
	r := newTestReader(t)
	end := time.Now().Truncate(15 * time.Second).Add(-10 * time.Minute)
	base := TrialQuery{Start: end.Add(-2 * time.Minute), End: end, Namespace: "bench", PodRegex: "gauntlet-go-.*"}
	for _, tc := range []struct {
		name string
		edit func(*TrialQuery)
		want string
	}{
		{"no such pods", func(q *TrialQuery) { q.PodRegex = "gauntlet-rust-.*" }, "no cAdvisor"},
		{"no such namespace", func(q *TrialQuery) { q.Namespace = "elsewhere" }, "no cAdvisor"},
		{"window before any scrape", func(q *TrialQuery) { q.Start, q.End = q.Start.Add(-time.Hour), q.End.Add(-time.Hour) }, "no cAdvisor"},
		{"bad pattern", func(q *TrialQuery) { q.PodRegex = "gauntlet-(" }, "podRegex"},
		{"no namespace", func(q *TrialQuery) { q.Namespace = "" }, "namespace"},
		{"window too short", func(q *TrialQuery) { q.Start = q.End.Add(-20 * time.Second) }, "two"},
		{"window reversed", func(q *TrialQuery) { q.Start, q.End = q.End, q.Start }, "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := base
			tc.edit(&q)
			var m benchv1.Measurement
			_, err := r.Resources(context.Background(), q, &m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The generator's figure is the busiest runner's own mean CPU: k6-operator names runner
// pods <testrun>-<n>-<suffix> (the Job <testrun>-<n>); its initializer and starter pods,
// the pause container and the pod-level cgroup must not count.
func TestGeneratorIsTheBusiestRunner(t *testing.T) {
	testenv.Long(t)
	const scrape = 15 * time.Second
	end := time.Now().Truncate(scrape).Add(-20 * time.Minute)
	start := end.Add(-120 * time.Second)
	runner := func(pod, container string, cpu []float64) cadvisorPod {
		return cadvisorPod{namespace: "bench", pod: pod, container: container, cpuBefore: 0.1, cpuAfter: 0.05,
			cpu: cpu, memBefore: mib, memAfter: mib, mem: flat(9, 100*mib)}
	}
	var all []series
	for _, c := range []cadvisorPod{
		runner("run-go-ping-1000-r1-1-x7k2p", "k6", []float64{1, 1.5, 2, 2, 2, 2, 1.5, 1}), // mean 1.625
		runner("run-go-ping-1000-r1-2-q9z8w", "k6", flat(8, 1.25)),
		runner("run-go-ping-1000-r1-1-x7k2p", "", flat(8, 3)),    // the pod-level cgroup
		runner("run-go-ping-1000-r1-1-x7k2p", "POD", flat(8, 3)), // the pause container
		runner("run-go-ping-1000-r1-initializer-a1b2c", "k6", flat(8, 3)),
		runner("run-go-ping-1000-r1-starter-d3e4f", "k6", flat(8, 3)),
		runner("run-go-ping-1000-r2-1-m5n6p", "k6", flat(8, 3)), // another trial
	} {
		all = append(all, c.series(start, scrape)...)
	}
	pushSeries(t, all)
	r := newTestReader(t)
	q := TrialQuery{Start: start, End: end, Namespace: "bench", RunnerPodRegex: "run-go-ping-1000-r1-[0-9]+-[a-z0-9]+"}
	var m benchv1.Measurement
	if _, err := r.Generator(context.Background(), q, &m); err != nil {
		t.Fatal(err)
	}
	if m.GeneratorCPUMillicores != 1625 {
		t.Errorf("generator %d millicores, want 1625 (the busiest runner's mean)", m.GeneratorCPUMillicores)
	}
	q.RunnerPodRegex = "run-none-[0-9]+-[a-z0-9]+"
	if _, err := r.Generator(context.Background(), q, &m); err == nil || !strings.Contains(err.Error(), "no cAdvisor") {
		t.Errorf("no runner series: error %v", err)
	}
	q.RunnerPodRegex = ""
	if _, err := r.Generator(context.Background(), q, &m); err == nil || !strings.Contains(err.Error(), "runnerPodRegex") {
		t.Errorf("no pattern: error %v", err)
	}
}
