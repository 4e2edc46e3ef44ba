package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// loadStartsMarker is what loadgen/bench.js's setup() logs as the load begins; internal/k6
// times its own CPU samples from the same line.
const loadStartsMarker = "gauntlet: load starts"

// runTrial runs one trial: k6 drives the plan while the target's tree is sampled during
// the measured window. A target that dies fails the trial with its last output; an
// interruption puts the trial back to Pending, since nothing of it was measured.
func (r *runner) runTrial(ctx context.Context, t *benchv1.Trial) {
	fail := func(format string, args ...any) {
		t.Phase, t.Message = benchv1.TrialFailed, fmt.Sprintf(format, args...)
		r.progress.note("trial %s failed: %s", t.Name, t.Message)
	}
	if t.Calibration {
		r.runCalibration(ctx, t)
		return
	}
	ts := r.targets[t.Target]
	if ts.broken != "" {
		t.Phase, t.Message = benchv1.TrialFailed, "not timed: "+ts.broken
		return
	}
	readsDB := r.readsDatabase(t.Scenario)
	if lost := r.services.checkLost(r.run); readsDB && lost != "" {
		t.Phase, t.Message = benchv1.TrialFailed, "not timed: "+firstLine(lost)
		return
	}
	if ts.proc == nil {
		// It crashed in an earlier trial: restart and verify it again before timing it.
		if err := r.startTarget(ctx, ts); err != nil {
			if ctx.Err() != nil {
				return
			}
			ts.broken = "restart after a crash failed: " + err.Error()
			fail("not timed: %s", ts.broken)
			return
		}
	}
	p, err := r.trialPlan(t, ts.proc.URL)
	if err != nil {
		fail("%v", err)
		return
	}
	dir := filepath.Join(r.opts.OutDir, "trials", t.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail("%v", err)
		return
	}
	logFile, err := os.Create(filepath.Join(dir, "k6.log"))
	if err != nil {
		fail("%v", err)
		return
	}
	defer logFile.Close()
	marker := newMarkerWriter(logFile, loadStartsMarker)
	gen, limit, err := r.generatorFor(t, dir, marker)
	if err != nil {
		fail("%v", err)
		return
	}

	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	proc := ts.proc
	var dbExited <-chan struct{}
	if readsDB {
		dbExited = r.services.exited(tctx.Done())
	}
	go func() { // a dead target or database ends the trial at once rather than after the window
		select {
		case <-proc.Done():
			cancel()
		case <-dbExited:
			cancel()
		case <-tctx.Done():
		}
	}()
	usage := make(chan supervise.Usage, 1)
	throttled := make(chan cgroups.Throttling, 1)
	var measureStart time.Time
	go func() {
		select {
		case t0 := <-marker.seen:
			measureStart = t0.Add(p.Warmup())
			end := measureStart.Add(p.Measure())
			go func() {
				th, _ := throttledOver(r.limits.group(t.Target), measureStart, end, tctx.Done())
				throttled <- th
			}()
			usage <- supervise.SampleTree(proc.Pid(), measureStart, end, supervise.SampleEvery, tctx.Done())
		case <-tctx.Done():
			throttled <- cgroups.Throttling{}
			usage <- supervise.Usage{}
		}
	}()
	t.Phase = benchv1.TrialRunning
	// The capture runs from before the warmup to after k6 has exited: which requests are
	// measured is read from each request's phase header, not from the clock.
	capture := r.startWire(proc.Port)
	res, err := gen.Run(tctx, p)
	cancel()
	u, th := <-usage, <-throttled
	w := r.stopWire(capture)

	lost := ""
	if readsDB {
		lost = r.services.checkLost(r.run)
	}
	select {
	case <-proc.Done():
		ts.proc = nil
		_ = proc.Stop(0) // reaps whatever its workers left behind
		if lost != "" {  // it may have died of it: the cause is the database
			fail("the database failed, not the target: %s", lost)
			return
		}
		fail("target %s exited during the trial (%v); its last output:\n%s", t.Target, proc.proc.ExitErr(), supervise.Indent(proc.Tail()))
		return
	default:
	}
	if lost != "" {
		fail("the database failed, not the target: %s", lost)
		return
	}
	if ctx.Err() != nil {
		t.Phase, t.Message = benchv1.TrialPending, "interrupted before the trial finished; not measured"
		return
	}
	if err != nil {
		fail("%v", err)
		return
	}
	m := measurementOf(res)
	m.Wire = w
	m.GeneratorCPULimitMillicores = limit
	m.CPUMillicores, m.CPUPeakMillicores = u.CPUMillicores, u.CPUPeakMillicores
	m.MemoryBytes, m.MemoryPeakBytes = u.MemoryBytes, u.MemoryPeakBytes
	m.CPUPeriods, m.CPUThrottledPeriods = th.Periods, th.ThrottledPeriods
	start, end := metav1.NewTime(measureStart), metav1.NewTime(measureStart.Add(p.Measure()))
	t.Phase, t.Result, t.MeasureStart, t.MeasureEnd, t.Message = benchv1.TrialSucceeded, &m, &start, &end, ""
	if u.Samples == 0 {
		t.Message = "target CPU and memory were not sampled"
	}
	if w == nil && r.noWire != "" {
		t.Message = strings.TrimPrefix(t.Message+"; "+r.noWire, "; ")
	}
}

// generatorFor is the k6 of a trial and the CPU it is judged against for GeneratorBound:
// pinned to the generator side's cores (every core when unpinned), and held to the CPU and
// memory the spec gives its runners for the trial's load point (sizing.Runners), as in
// a cluster, unless --no-limits.
func (r *runner) generatorFor(t *benchv1.Trial, dir string, out io.Writer) (k6.Runner, int64, error) {
	gen := k6.Runner{Binary: r.opts.K6, Dir: dir, Output: out, CPUs: r.cpus.generator}
	limit := int64(runtime.NumCPU()) * 1000
	if n := len(r.cpus.generator); n > 0 {
		limit = int64(n) * 1000
	}
	c, err := sizing.Runners(r.run, t.LoadPoint)
	if err != nil {
		return gen, limit, err
	}
	if gen.Cgroup, err = r.limits.generator(r.run, c); err != nil {
		return gen, limit, err
	}
	if gen.Cgroup != nil {
		limit = min(limit, generatorTotal(r.run, c.Runners, c.RunnerMillicores).MilliCPU)
	}
	return gen, limit, nil
}

// trialPlan is the k6 plan of a trial (plan.K6Plan) with the local mode's tags.
// A search step beyond the local mode's VU bound fails as a trial, unless --allow-unsafe.
func (r *runner) trialPlan(t *benchv1.Trial, baseURL string) (workload.Plan, error) {
	p, err := plan.K6Plan(&r.run.Spec, plan.FromStatus(t), baseURL, workload.Tags{
		TestID: r.run.Name + "-" + t.Name, Target: t.Target, Scenario: t.Scenario,
		LoadPoint: strconv.Itoa(int(t.LoadPoint)), Repetition: strconv.Itoa(int(t.Repetition))})
	if err == nil && !r.opts.AllowUnsafe {
		err = CheckPlanVUs(t.Name, p)
	}
	return p, err
}

// markerWriter passes k6's output to a file and reports when a marker line first appears.
type markerWriter struct {
	mu     sync.Mutex
	out    *os.File
	marker []byte
	carry  []byte // the end of the previous write, in case the marker straddles two
	seen   chan time.Time
	done   bool
}

func newMarkerWriter(out *os.File, marker string) *markerWriter {
	return &markerWriter{out: out, marker: []byte(marker), seen: make(chan time.Time, 1)}
}

func (m *markerWriter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.done {
		buf := append(m.carry, p...)
		if bytes.Contains(buf, m.marker) {
			m.done = true
			m.seen <- time.Now()
		}
		m.carry = append([]byte(nil), buf[max(0, len(buf)-len(m.marker)):]...)
	}
	_, _ = m.out.Write(p) // a failing log file must not fail the trial
	return len(p), nil
}
