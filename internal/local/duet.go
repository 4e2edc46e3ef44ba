package local

import (
	"context"
	"io"
	"sync"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// duetArm is one arm of a duet while it runs.
type duetArm struct {
	t  *benchv1.Trial
	ts *targetState
	x  *trialRun
	mt measured
}

// runDuet runs the arms of a pair at the same time: one k6 (held to the runners' CPU and
// memory for the arms' loads together) loads every arm at the whole load point, their
// arrivals in turns (workload.Duet); each arm has its own wire capture and its target its
// own CPU limit. The targets share the target side's CPUs where it has too few for an arm
// each (placeDuet). An arm that cannot be timed fails as it would alone; the others still
// run, and one arm left runs as a trial alone. Only the load runs at once: the engine hears
// of the arms one by one.
func (r *runner) runDuet(ctx context.Context, arms []int) {
	var ready []*duetArm
	for _, i := range arms {
		t := &r.run.Status.Trials[i]
		ts := r.targets[t.Target]
		if why := r.notTimed(ctx, t, ts); why != "" {
			if ctx.Err() == nil {
				r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: "not timed: " + why}, r.notify))
			}
			continue
		}
		x, err := r.prepareArm(t, ts.proc.URL)
		if err != nil {
			r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: err.Error()}, r.notify))
			continue
		}
		defer x.log.Close()
		ready = append(ready, &duetArm{t: t, ts: ts, x: x})
	}
	wait, err := r.shareLoad(ctx, ready)
	if err != nil {
		for _, a := range ready {
			r.act(engine.FailTrial(r.run, a.t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: err.Error()}, r.notify))
		}
		return
	}
	for _, a := range ready {
		engine.Begin(a.t, "", r.notify)
	}
	var wg sync.WaitGroup
	for _, a := range ready {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.mt = r.measureTrial(ctx, a.t, a.ts, a.x)
		}()
	}
	wg.Wait()
	wait() // an arm whose target died stopped waiting; the next trial's load must not overlap
	for _, a := range ready {
		o, m := r.concludeTrial(ctx, a.t, a.ts, a.x, a.mt)
		if o.Failure == nil && ctx.Err() != nil {
			engine.Requeue(a.t, "interrupted before the trial finished; not measured")
			continue
		}
		r.finishTrial(a.t, o, m, a.x.notes)
	}
}

// shareLoad gives the arms their load: one k6 for all of them, started by the first arm to
// ask (its capture and samplers are then running) and run to its end (or the run's) even
// when an arm's target dies, as the others are still measured. Its output goes to every
// arm's k6.log, its plan and summary to the first arm's folder. A single arm gets a k6 of
// its own, as a trial alone. wait returns once the shared k6 has exited (at once if it never
// started).
func (r *runner) shareLoad(ctx context.Context, ready []*duetArm) (wait func(), err error) {
	wait = func() {}
	if len(ready) == 0 {
		return wait, nil
	}
	first := ready[0]
	if len(ready) == 1 {
		return wait, r.ownLoad(first.t, first.x)
	}
	plans := make([]workload.Plan, len(ready))
	outs := make([]io.Writer, len(ready))
	for k, a := range ready {
		plans[k], outs[k] = a.x.plan, a.x.marker
	}
	p, err := workload.Duet(plans)
	if err == nil && !r.opts.AllowUnsafe {
		err = CheckPlanVUs(first.t.Name, p)
	}
	if err != nil {
		return wait, err
	}
	gen, limit, err := r.generatorFor(first.t.LoadPoint*int32(len(ready)), first.x.dir, io.MultiWriter(outs...))
	if err != nil {
		return wait, err
	}
	var (
		once sync.Once
		done = make(chan struct{})
		res  []k6.Result
		kerr error
	)
	for k, a := range ready {
		a.x.limit = limit
		a.x.load = func(armCtx context.Context) (k6.Result, error) {
			once.Do(func() {
				go func() {
					defer close(done)
					res, kerr = gen.RunDuet(ctx, p)
				}()
			})
			select {
			case <-done:
			case <-armCtx.Done():
				return k6.Result{}, armCtx.Err()
			}
			if kerr != nil {
				return k6.Result{}, kerr
			}
			return res[k], nil
		}
	}
	wait = func() {
		once.Do(func() { close(done) }) // never started: nothing to wait for
		<-done
	}
	return wait, nil
}
