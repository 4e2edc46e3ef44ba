package local

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/cpuset"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

func limitedTarget(name, cpu, mem string) benchv1.Target {
	c, m := resource.MustParse(cpu), resource.MustParse(mem)
	return benchv1.Target{Name: name, Preset: "go-nethttp", Resources: benchv1.Resources{CPU: &c, Memory: &m}}
}

// --no-limits starts targets as before and says so in the status and the table's lines.
func TestNoLimits(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "nolimits"}}
	l, err := enforceLimits(run, true)
	if err != nil {
		t.Fatal(err)
	}
	g, err := l.add(run, limitedTarget("go", "200m", "256Mi"), nil)
	if err != nil || g != nil {
		t.Fatalf("group %v, %v: want none", g, err)
	}
	got := targetStatus(run, "go").Limits
	if got == nil || got.Applied || got.CPUMillicores != 200 || !strings.Contains(got.Message, "--no-limits") {
		t.Errorf("status %+v", got)
	}
	var table strings.Builder
	if err := report.WriteTable(&table, run); err != nil || strings.Count(table.String(), "limits: ") != 1 || !strings.Contains(table.String(), "\nlimits: go: not applied (--no-limits)") {
		t.Errorf("table %q, %v", table.String(), err)
	}
	// No resources at all: the API's defaults, as the cluster gives the container.
	if _, err := l.add(run, benchv1.Target{Name: "bare", Preset: "go-nethttp"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := targetStatus(run, "bare").Limits; got.CPUMillicores != 1000 {
		t.Errorf("unset resources: %+v, want the default 1 CPU", got)
	}
	if err := l.finish(run); err != nil {
		t.Error(err)
	}
	if err := CheckLimits(true); err != nil {
		t.Errorf("CheckLimits(noLimits): %v", err)
	}
}

func TestDescribeLimits(t *testing.T) {
	l := &benchv1.LocalLimits{Applied: true, CPUMillicores: 2000, CPUQuotaMicros: 200_000, CPUPeriodMicros: 100_000, MemoryBytes: 512 << 20}
	want := "CPU 2000m (CFS quota 200000 µs per 100000 µs), memory 512.0MiB; the target side is pinned to 1 CPU(s), so it gets at most 1000m"
	if got := describeLimits(l, 1); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := describeLimits(&benchv1.LocalLimits{Applied: true}, 0); got != "no CPU limit, no memory limit" {
		t.Errorf("no limits: %q", got)
	}
}

// A target started through Start with a group and pinned CPUs is born in its cgroup and
// stays pinned: the quota applies on top of the pinning. The status records the limits read
// back and the throttling, and nothing is left once the run's limits are finished.
func TestLimitsOnAStartedProcess(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "limits"}}
	l, err := enforceLimits(run, false)
	if os.Geteuid() != 0 {
		if err == nil || !errors.Is(err, cgroups.ErrNoPrivilege) && !strings.Contains(err.Error(), "--no-limits") {
			t.Fatalf("unprivileged: want a refusal naming --no-limits, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("this test needs root and the cpu and memory cgroup controllers: %v", err)
	}
	if err := CheckLimits(false); err != nil {
		t.Errorf("CheckLimits says no where the limits were applied: %v", err)
	}
	defer func() { _ = l.finish(run) }()
	cpus, err := cpuset.Available()
	if err != nil {
		t.Fatal(err)
	}
	pin := cpus[len(cpus)-1:]
	g, err := l.add(run, limitedTarget("spin", "100m", "64Mi"), pin)
	if err != nil {
		t.Fatal(err)
	}
	p, err := supervise.Start(supervise.Spec{Name: "spin", Argv: []string{"sh", "-c", "while :; do :; done"}, CPUs: pin, Cgroup: g})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop(syscall.SIGKILL, time.Second) }()
	procs, err := g.Procs()
	if err != nil || len(procs) != 1 || procs[0] != p.Pid() {
		t.Errorf("group holds %v (%v), want [%d]", procs, err, p.Pid())
	}
	if got, err := cpuset.Of(p.Pid()); err != nil || cpuset.Format(got) != cpuset.Format(pin) {
		t.Errorf("pinned to %v (%v), want %v", got, err, pin)
	}
	// This process's own thread went back: it is not in the target's group.
	if mine, _ := os.ReadFile("/proc/self/cgroup"); strings.Contains(string(mine), "gauntlet-local-limits-") {
		t.Errorf("this process stayed in the target's cgroup:\n%s", mine)
	}
	// Over a window, as a trial reads it: a spinning process at 100m is throttled in most
	// 100 ms periods it runs. Not in every one: on a loaded machine (make test runs this
	// beside the lab) the spinner can miss its 10 ms in a period, which then is not throttled.
	from := time.Now().Add(100 * time.Millisecond)
	th, ok := throttledOver(g, from, from.Add(800*time.Millisecond), nil)
	if !ok || th.Periods < 6 || th.Periods > 10 || th.ThrottledPeriods*2 < th.Periods || th.ThrottledMicros <= 0 {
		t.Errorf("throttling over 800 ms: %+v (%v), want about 8 periods, most of them throttled", th, ok)
	}
	if _, ok := throttledOver(nil, from, from, nil); ok {
		t.Error("throttling read without a group")
	}
	rec := targetStatus(run, "spin").Limits
	if rec == nil || !rec.Applied || rec.CPUQuotaMicros != 10_000 || rec.CPUPeriodMicros != 100_000 || rec.MemoryBytes != 64<<20 ||
		!strings.Contains(rec.Cgroup, "gauntlet-local-limits-"+strconv.Itoa(os.Getpid())) {
		t.Errorf("status %+v", rec)
	}
	if err := l.finish(run); err != nil {
		t.Fatal(err)
	}
	if rec.ThrottledPeriods == 0 || rec.PeriodsRun < rec.ThrottledPeriods {
		t.Errorf("throttling not recorded: %+v", rec)
	}
	select {
	case <-p.Done(): // removing the cgroup killed what was left in it
	case <-time.After(2 * time.Second):
		t.Error("the process in the removed cgroup still runs")
	}
	if _, err := os.Stat(strings.Fields(rec.Cgroup)[2]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind: %v", rec.Cgroup, err)
	}
}

// k6 is held to its runners' total: one group per sizing in use, with the CPU and memory
// of all the runners, and the status says so (or that --no-limits left it unheld).
func TestGeneratorGroups(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "generator"}}
	mem := resource.MustParse("256Mi")
	run.Spec.LoadGenerator.Resources.Memory = &mem
	free, err := enforceLimits(run, true)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := free.generator(run, sizing.Choice{Runners: 2, RunnerMillicores: 100}); g != nil || err != nil {
		t.Errorf("--no-limits: group %v, %v; want none", g, err)
	}
	two := benchv1.GeneratorSizing{LoadPoint: 500, Runners: 2, RunnerCPUMillicores: 100}
	if got := generatorNote(two, run, false); !strings.Contains(got, "not held") || !strings.Contains(got, "--no-limits") {
		t.Errorf("unheld note %q", got)
	}
	if got := generatorNote(two, run, true); !strings.Contains(got, "CPU 200m and memory 512Mi") {
		t.Errorf("held note %q, want the two runners' 200m and 512Mi", got)
	}
	l, err := enforceLimits(run, false)
	if os.Geteuid() != 0 {
		if err == nil {
			t.Fatal("unprivileged: limits enforced without root")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.finish(run) }()
	g, err := l.generator(run, sizing.Choice{Runners: 2, RunnerMillicores: 100})
	if err != nil {
		t.Fatal(err)
	}
	if g.Applied.QuotaMicros != 20_000 || g.Applied.PeriodMicros != 100_000 || g.Applied.MemoryBytes != 512<<20 {
		t.Errorf("applied %+v, want 200m (20000 µs per 100000 µs) and 512Mi", g.Applied)
	}
	if again, _ := l.generator(run, sizing.Choice{Runners: 2, RunnerMillicores: 100}); again != g {
		t.Error("the same sizing made a second group")
	}
	other, err := l.generator(run, sizing.Choice{Runners: 1, RunnerMillicores: 300})
	if err != nil || other == g || other.Applied.QuotaMicros != 30_000 {
		t.Errorf("another sizing: %+v, %v", other, err)
	}
	if _, err := l.add(run, limitedTarget("k6", "100m", "64Mi"), nil); err != nil {
		t.Errorf("a target named k6 beside the generator's groups: %v", err)
	}
}
