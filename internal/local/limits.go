package local

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// limits are the run's cgroups: each target's resources enforced as the kubelet enforces a
// container's limits, so one document means the same constraints here and in a cluster.
type limits struct {
	host   *cgroups.Host
	run    *cgroups.Run // nil: not enforced (--no-limits)
	groups map[string]*cgroups.Group
	// k6's groups, by the load generator's total CPU and memory (one per sizing in use).
	generators map[cgroups.Limits]*cgroups.Group
}

// noLimitsMessage is each target's limits message under --no-limits.
const noLimitsMessage = "not applied (--no-limits): the target may use every CPU of the target side and any memory, unlike in a cluster"

// enforceLimits creates the run's cgroup, or says plainly why it cannot (the caller refuses
// the run before anything starts). noLimits keeps the targets unlimited.
func enforceLimits(run *benchv1.BenchmarkRun, noLimits bool) (*limits, error) {
	if noLimits {
		return &limits{}, nil
	}
	h, err := cgroups.Detect()
	if err == nil {
		var r *cgroups.Run
		h.Sweep() // a run killed with SIGKILL left its (empty) cgroups
		if r, err = h.NewRun(run.Name); err == nil {
			return &limits{host: h, run: r, groups: map[string]*cgroups.Group{}, generators: map[cgroups.Limits]*cgroups.Group{}}, nil
		}
	}
	return nil, limitsError(err)
}

// CheckLimits says, before anything starts, why this machine cannot enforce the targets'
// limits (nil when it can, or with noLimits).
func CheckLimits(noLimits bool) error {
	if noLimits {
		return nil
	}
	if _, err := cgroups.Detect(); err != nil {
		return limitsError(err)
	}
	return nil
}

func limitsError(err error) error {
	hint := "run as root on a machine with the cpu and memory cgroup controllers"
	if errors.Is(err, cgroups.ErrNoPrivilege) {
		hint = "run as root (sudo)"
	}
	return fmt.Errorf("spec.targets[].resources: the local mode enforces each target's CPU and memory limits as the kubelet does (a cgroup per target) and cannot here: %w; %s, or pass --no-limits to run the targets without limits (status.targets[].limits then says so)", err, hint)
}

// add creates the target's cgroup with its spec's limits and records them in the status;
// the target's processes start in the group it returns (nil under --no-limits). cpus are
// the target side's pinned CPUs: a limit above them cannot be reached, and the status says so.
func (l *limits) add(run *benchv1.BenchmarkRun, t benchv1.Target, cpus []int) (*cgroups.Group, error) {
	if g, ok := l.groups[t.Name]; ok {
		return g, nil // a target restarted after a crash goes back into its own group
	}
	// As in a cluster, where the API's defaults become the container's limits.
	cpu, mem := t.Resources.CPUOrDefault(), t.Resources.MemoryOrDefault()
	want := cgroups.Limits{MilliCPU: cpu.MilliValue(), MemoryBytes: mem.Value()}
	rec := &benchv1.LocalLimits{CPUMillicores: want.MilliCPU}
	targetStatus(run, t.Name).Limits = rec
	if l.run == nil {
		rec.Message = noLimitsMessage
		return nil, nil
	}
	g, err := l.run.Add(t.Name, want)
	if err != nil {
		rec.Message = "not applied: " + err.Error()
		return nil, fmt.Errorf("target %s: limits: %w", t.Name, err)
	}
	l.groups[t.Name] = g
	a := g.Applied
	rec.Applied, rec.CPUQuotaMicros, rec.CPUPeriodMicros, rec.MemoryBytes = true, a.QuotaMicros, a.PeriodMicros, a.MemoryBytes
	rec.Cgroup = fmt.Sprintf("cgroup v%d %s", l.host.Version, g.Path())
	rec.Message = describeLimits(rec, len(cpus))
	return g, nil
}

// group is the target's cgroup; nil under --no-limits or before it started.
func (l *limits) group(target string) *cgroups.Group {
	if l == nil {
		return nil
	}
	return l.groups[target]
}

// generator is the cgroup k6 runs in for a trial sized by c (sizing.Runners): the CPU
// and memory of all its runners together, as the kubelet would hold them in a cluster, so
// that a document that gives the runners 200m drives the same load here as there. Nil
// under --no-limits.
func (l *limits) generator(run *benchv1.BenchmarkRun, c sizing.Choice) (*cgroups.Group, error) {
	if l.run == nil {
		return nil, nil
	}
	want := generatorTotal(run, c.Runners, c.RunnerMillicores)
	if g, ok := l.generators[want]; ok {
		return g, nil
	}
	// A dot keeps the name apart from every target's (a DNS label).
	g, err := l.run.Add(fmt.Sprintf("k6.%dm", want.MilliCPU), want)
	if err != nil {
		return nil, fmt.Errorf("the load generator's limits (spec.loadGenerator.resources): %w", err)
	}
	l.generators[want] = g
	return g, nil
}

// generatorNote is what status.loadGeneratorSizing adds for the local mode, where one k6
// process stands for the runners.
func generatorNote(c benchv1.GeneratorSizing, run *benchv1.BenchmarkRun, enforced bool) string {
	if !enforced {
		return "; here one k6 process, not held to the runners' CPU and memory (--no-limits)"
	}
	want := generatorTotal(run, c.Runners, c.RunnerCPUMillicores)
	return fmt.Sprintf("; here one k6 process held to the runners' total, CPU %dm and memory %s (a cgroup)",
		want.MilliCPU, resource.NewQuantity(want.MemoryBytes, resource.BinarySI))
}

// generatorTotal is the CPU and memory of all of a load point's runners together.
func generatorTotal(run *benchv1.BenchmarkRun, runners int32, milliCPU int64) cgroups.Limits {
	n := int64(max(runners, 1))
	mem := run.Spec.LoadGenerator.Resources.MemoryOrDefault()
	return cgroups.Limits{MilliCPU: n * milliCPU, MemoryBytes: n * mem.Value()}
}

// throttledOver is what the CFS quota did to the group over the measured window, from its
// counters at start and at end, as cAdvisor's are read in a cluster; ok is false when the
// trial stopped first, a read failed, or g is nil (--no-limits).
func throttledOver(g *cgroups.Group, start, end time.Time, stop <-chan struct{}) (d cgroups.Throttling, ok bool) {
	if g == nil {
		return d, false
	}
	first, last, ok := atBothEnds(start, end, stop, g.Throttling)
	if !ok {
		return d, false
	}
	return cgroups.Throttling{Periods: last.Periods - first.Periods, ThrottledPeriods: last.ThrottledPeriods - first.ThrottledPeriods,
		ThrottledMicros: last.ThrottledMicros - first.ThrottledMicros}, true
}

// atBothEnds reads a cumulative counter at start and at end of a window, waiting for each;
// ok is false when stop closes first or a read fails.
func atBothEnds[T any](start, end time.Time, stop <-chan struct{}, read func() (T, error)) (first, last T, ok bool) {
	at := func(t time.Time) (v T, ok bool) {
		select {
		case <-time.After(time.Until(t)):
		case <-stop:
			return v, false
		}
		v, err := read()
		return v, err == nil
	}
	if first, ok = at(start); !ok {
		return first, last, false
	}
	last, ok = at(end)
	return first, last, ok
}

// describeLimits is the status's and the terminal's line for applied limits.
func describeLimits(l *benchv1.LocalLimits, pinned int) string {
	cpu := "no CPU limit"
	if l.CPUQuotaMicros > 0 {
		cpu = fmt.Sprintf("CPU %dm (CFS quota %d µs per %d µs)", l.CPUMillicores, l.CPUQuotaMicros, l.CPUPeriodMicros)
	}
	mem := "no memory limit"
	if l.MemoryBytes > 0 {
		mem = "memory " + units.FormatBytes(l.MemoryBytes)
	}
	msg := cpu + ", " + mem
	if pinned > 0 && l.CPUMillicores > int64(pinned)*1000 {
		msg += fmt.Sprintf("; the target side is pinned to %d CPU(s), so it gets at most %dm", pinned, pinned*1000)
	}
	return msg
}

// finish records each group's throttling over the run and removes the run's cgroups
// (killing anything of a target still in them). Safe on a nil or unlimited run.
func (l *limits) finish(run *benchv1.BenchmarkRun) error {
	if l == nil || l.run == nil {
		return nil
	}
	for name, g := range l.groups {
		if th, err := g.Throttling(); err == nil {
			if rec := targetStatus(run, name).Limits; rec != nil {
				rec.PeriodsRun, rec.ThrottledPeriods, rec.ThrottledMicros = th.Periods, th.ThrottledPeriods, th.ThrottledMicros
			}
		}
	}
	err := l.run.Remove()
	l.run, l.groups, l.generators = nil, nil, nil
	return err
}

// targetStatus is the target's status.targets entry, added when missing.
func targetStatus(run *benchv1.BenchmarkRun, name string) *benchv1.TargetStatus {
	st := &run.Status
	for i := range st.Targets {
		if st.Targets[i].Name == name {
			return &st.Targets[i]
		}
	}
	st.Targets = append(st.Targets, benchv1.TargetStatus{Name: name})
	return &st.Targets[len(st.Targets)-1]
}
