package local

import (
	"context"
	"sync"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
)

// duetArm is one arm of a duet while it runs.
type duetArm struct {
	t  *benchv1.Trial
	ts *targetState
	x  *trialRun
	mt measured
}

// runDuet runs the arms of a pair at the same time, each with its own k6 (held to the
// runners' CPU and memory in a cgroup of its own) under the whole load point, its own wire
// capture and its target's own CPU limit; the targets share the target side's CPUs, the
// generators the generator side's. An arm that cannot be timed fails as it would alone; the
// others still run. Only the load runs at once: the engine hears of the arms one by one.
func (r *runner) runDuet(ctx context.Context, arms []int) {
	var ready []*duetArm
	for k, i := range arms {
		t := &r.run.Status.Trials[i]
		ts := r.targets[t.Target]
		if why := r.notTimed(ctx, t, ts); why != "" {
			if ctx.Err() == nil {
				r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: "not timed: " + why}, r.notify))
			}
			continue
		}
		x, err := r.prepareTrial(t, k+1, ts.proc.URL) // arms count from 1: 0 is a trial run alone
		if err != nil {
			r.act(engine.FailTrial(r.run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: err.Error()}, r.notify))
			continue
		}
		defer x.log.Close()
		ready = append(ready, &duetArm{t: t, ts: ts, x: x})
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
	for _, a := range ready {
		o, m := r.concludeTrial(ctx, a.t, a.ts, a.x, a.mt)
		if o.Failure == nil && ctx.Err() != nil {
			engine.Requeue(a.t, "interrupted before the trial finished; not measured")
			continue
		}
		r.finishTrial(a.t, o, m, a.x.notes)
	}
}
