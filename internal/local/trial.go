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
	"sync"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// loadStartsMarker is what loadgen/bench.js's setup() logs as the load begins; internal/k6
// times its own CPU samples from the same line.
const loadStartsMarker = "gauntlet: load starts"

// runTrial is the local mode's executor of a trial for the engine: k6 drives the plan
// while the target's tree is sampled during the measured window, then the engine records
// what was seen. A target that dies fails the trial with its last output; an interruption
// puts the trial back to Pending, since nothing of it was measured.
func (r *runner) runTrial(ctx context.Context, t *benchv1.Trial) {
	if t.Calibration {
		r.runCalibration(ctx, t)
		return
	}
	ts := r.targets[t.Target]
	if why := r.notTimed(ctx, t, ts); why != "" {
		if ctx.Err() == nil {
			r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: "not timed: " + why}, r.notify))
		}
		return
	}
	x, err := r.prepareTrial(t, ts.proc.URL)
	if err != nil {
		r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: err.Error()}, r.notify))
		return
	}
	defer x.log.Close()
	engine.Begin(t, "", r.notify)
	o, m := r.executeTrial(ctx, t, ts, x)
	if o.Failure == nil && ctx.Err() != nil {
		engine.Requeue(t, "interrupted before the trial finished; not measured")
		return
	}
	r.finishTrial(t, o, m, x.notes)
}

// finishTrial gives what a finished trial's k6 saw to the engine, and its figures once the
// engine says they are due (at once: k6 has exited and reported them).
func (r *runner) finishTrial(t *benchv1.Trial, o engine.Observation, m benchv1.Measurement, notes []string) {
	next := engine.Step(r.run, t, o, time.Now(), engine.Deadlines{}, r.notify)
	for !next.Read && next.Stop == nil && next.After > 0 { // k6's clock ended a hair before ours
		time.Sleep(next.After)
		next = engine.Step(r.run, t, o, time.Now(), engine.Deadlines{}, r.notify)
	}
	if next.Read {
		next = engine.Record(r.run, t, m, notes, r.notify)
	}
	r.act(next)
}

// act says why a trial failed; the run goes on with the other trials (each target is a
// process of its own, restarted after a crash), and the engine fails it at the end.
func (r *runner) act(next engine.Next) {
	if next.Stop != nil {
		r.progress.note("%s", next.Stop.Why)
	}
}

// notTimed says why a target's trial cannot be timed: the target is broken, the database it
// reads is lost, or it crashed earlier and does not restart and verify again.
func (r *runner) notTimed(ctx context.Context, t *benchv1.Trial, ts *targetState) string {
	if ts.broken != "" {
		return ts.broken
	}
	if lost := r.services.checkLost(r.run); r.readsDatabase(t.Scenario) && lost != "" {
		return firstLine(lost)
	}
	if ts.proc == nil {
		if err := r.startTarget(ctx, ts); err != nil {
			ts.broken = "restart after a crash failed: " + err.Error()
			return ts.broken
		}
	}
	return ""
}

// trialRun is what a trial runs with: its k6 plan, log, load and generator's CPU limit.
type trialRun struct {
	plan   workload.Plan
	dir    string
	log    *os.File
	marker *markerWriter
	// load runs the trial's k6 (or, for a duet's arm, waits for the duet's) and returns its
	// figures of this trial's target.
	load  func(context.Context) (k6.Result, error)
	limit int64
	cpus  []int // the target's and k6's, for the host's steal
	notes []string
}

// prepareTrial writes nothing but the trial's folder and k6 log, and sizes its generator.
func (r *runner) prepareTrial(t *benchv1.Trial, url string) (*trialRun, error) {
	x, err := r.prepareArm(t, url)
	if err != nil {
		return nil, err
	}
	if err := r.ownLoad(t, x); err != nil {
		x.log.Close()
		return nil, err
	}
	return x, nil
}

// ownLoad gives a trial a k6 of its own, sized for its load point.
func (r *runner) ownLoad(t *benchv1.Trial, x *trialRun) error {
	gen, limit, err := r.generatorFor(t.LoadPoint, x.dir, x.marker)
	x.limit = limit
	x.load = func(ctx context.Context) (k6.Result, error) { return gen.Run(ctx, x.plan) }
	return err
}

// prepareArm is prepareTrial without the load: a duet's arms share one (duet.go).
func (r *runner) prepareArm(t *benchv1.Trial, url string) (*trialRun, error) {
	p, err := r.trialPlan(t, url)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.opts.OutDir, "trials", t.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "k6.log"))
	if err != nil {
		return nil, err
	}
	return &trialRun{plan: p, dir: dir, log: logFile, marker: newMarkerWriter(logFile, loadStartsMarker), cpus: r.cpus.trialCPUs(t.Target)}, nil
}

// executeTrial runs k6 against the target with the wire captured and the target's tree
// and cgroup sampled over the measured window, and says what it saw: when the load began,
// and whether the target, the database or k6 failed. A dead target or database ends the
// trial at once rather than after the window.
func (r *runner) executeTrial(ctx context.Context, t *benchv1.Trial, ts *targetState, x *trialRun) (engine.Observation, benchv1.Measurement) {
	return r.concludeTrial(ctx, t, ts, x, r.measureTrial(ctx, t, ts, x))
}

// measured is what measureTrial saw, before it is judged (concludeTrial).
type measured struct {
	o       engine.Observation
	proc    *Target
	readsDB bool
	res     k6.Result
	err     error
	usage   supervise.Usage
	th      cgroups.Throttling
	steal   hoststeal.Taken
	wire    *benchv1.WireLatency
}

// measureTrial is the part of a trial that runs while the load does: it touches nothing of
// the run's status, so a duet's arms run it at the same time (duet.go).
func (r *runner) measureTrial(ctx context.Context, t *benchv1.Trial, ts *targetState, x *trialRun) measured {
	mt := measured{o: engine.Observation{Subject: "k6", Created: time.Now(), Exited: true}}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mt.proc, mt.readsDB = ts.proc, r.readsDatabase(t.Scenario)
	proc := mt.proc
	var dbExited <-chan struct{}
	if mt.readsDB {
		dbExited = r.services.exited(tctx.Done())
	}
	go func() {
		select {
		case <-proc.Done():
			cancel()
		case <-dbExited:
			cancel()
		case <-tctx.Done():
		}
	}()
	w := r.sampleWindow(tctx, t, proc, x)
	// The capture runs from before the warmup to after k6 has exited: which requests are
	// measured is read from each request's phase header, not from the clock.
	capture := r.startWire(proc.Port)
	mt.res, mt.err = x.load(tctx)
	cancel()
	mt.usage, mt.th, mt.steal = <-w.usage, <-w.throttled, <-w.steal
	mt.wire = r.stopWire(capture, x.plan)
	mt.o.Started = *w.started
	return mt
}

// concludeTrial judges what measureTrial saw: why the trial failed, or its measurement.
func (r *runner) concludeTrial(ctx context.Context, t *benchv1.Trial, ts *targetState, x *trialRun, mt measured) (engine.Observation, benchv1.Measurement) {
	o := mt.o
	if o.Failure = r.trialFailure(ctx, t, ts, mt.proc, mt.readsDB, mt.err); o.Failure != nil || ctx.Err() != nil {
		return o, benchv1.Measurement{}
	}
	u, th, w := mt.usage, mt.th, mt.wire
	m := measurementOf(mt.res)
	m.Wire = w
	m.GeneratorCPULimitMillicores = x.limit
	m.CPUMillicores, m.CPUPeakMillicores = u.CPUMillicores, u.CPUPeakMillicores
	m.MemoryBytes, m.MemoryPeakBytes = u.MemoryBytes, u.MemoryPeakBytes
	m.CPUPeriods, m.CPUThrottledPeriods = th.Periods, th.ThrottledPeriods
	m.HostStealMillicores, m.HostCPUs = mt.steal.Millicores, mt.steal.CPUs
	if u.Samples == 0 {
		x.notes = append(x.notes, "target CPU and memory were not sampled")
	}
	if w == nil {
		x.notes = append(x.notes, r.wireUnavailable())
	}
	return o, m
}

// trialFailure says why a trial whose k6 has exited failed: the target died (of the
// database, if it is lost too), the database was lost, or k6 failed. nil when it did not,
// or when the run was interrupted (nothing of the trial was measured).
func (r *runner) trialFailure(ctx context.Context, t *benchv1.Trial, ts *targetState, proc *Target, readsDB bool, k6Err error) *engine.Failure {
	fail := func(format string, args ...any) *engine.Failure {
		return &engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: fmt.Sprintf(format, args...)}
	}
	lost := ""
	if readsDB {
		lost = r.services.checkLost(r.run)
	}
	select {
	case <-proc.Done():
		ts.proc = nil
		_ = proc.Stop(0) // reaps whatever its workers left behind
		if lost != "" {  // it may have died of it: the cause is the database
			return fail("the database failed, not the target: %s", lost)
		}
		return fail("target %s exited during the trial (%v); its last output:\n%s", t.Target, proc.proc.ExitErr(), supervise.Indent(proc.Tail()))
	default:
	}
	switch {
	case lost != "":
		return fail("the database failed, not the target: %s", lost)
	case ctx.Err() != nil:
		return nil
	case k6Err != nil:
		return fail("%v", k6Err)
	}
	return nil
}

// window is what sampleWindow delivers once the measured window has ended (or the trial
// stopped): one value on each channel; started is set before any of them.
type window struct {
	usage     chan supervise.Usage
	throttled chan cgroups.Throttling
	steal     chan hoststeal.Taken
	started   *time.Time
}

// sampleWindow samples the target's tree and cgroup, and the host's steal on the trial's
// CPUs, over the measured window, which begins a warmup after k6 logs that the load starts.
func (r *runner) sampleWindow(tctx context.Context, t *benchv1.Trial, proc *Target, x *trialRun) window {
	w := window{usage: make(chan supervise.Usage, 1), throttled: make(chan cgroups.Throttling, 1), steal: make(chan hoststeal.Taken, 1), started: new(time.Time)}
	go func() {
		select {
		case t0 := <-x.marker.seen:
			*w.started = t0
			start := t0.Add(x.plan.Warmup())
			end := start.Add(x.plan.Measure())
			go func() {
				th, _ := throttledOver(r.limits.group(t.Target), start, end, tctx.Done())
				w.throttled <- th
			}()
			go func() { w.steal <- stealOver(x.cpus, start, end, tctx.Done()) }()
			w.usage <- supervise.SampleTree(proc.Pid(), start, end, supervise.SampleEvery, tctx.Done())
		case <-tctx.Done():
			w.throttled <- cgroups.Throttling{}
			w.steal <- hoststeal.Taken{}
			w.usage <- supervise.Usage{}
		}
	}()
	return w
}

// generatorFor is the k6 of a trial and the CPU it is judged against for GeneratorBound:
// pinned to the generator side's cores (every core when unpinned), and held to the CPU and
// memory the spec gives its runners for the load it drives (sizing.Runners; a duet's arms
// together), as in a cluster, unless --no-limits.
func (r *runner) generatorFor(load int32, dir string, out io.Writer) (k6.Runner, int64, error) {
	cpus := r.cpus.generator
	gen := k6.Runner{Binary: r.opts.K6, Dir: dir, Output: out, CPUs: cpus}
	limit := int64(runtime.NumCPU()) * 1000
	if n := len(cpus); n > 0 {
		limit = int64(n) * 1000
	}
	c, err := sizing.Runners(r.run, load)
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
