package controllers

import (
	"context"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// verifications runs contract checks off the reconcile worker: one goroutine per run and
// target, its outcome picked up by a later pass. A slow or stalling target then costs its
// own run time, never another run's (which would otherwise read Prometheus after its
// retention window). Jobs live in memory: after a restart a pending target is verified again.
type verifications struct {
	mu      sync.Mutex
	jobs    map[string]*verifyJob
	running int // jobs whose checks are under way, across every run
}

// verifyJob is one target's verification in flight or done.
type verifyJob struct {
	started time.Time
	cancel  context.CancelFunc // stops the checks early (forgetRun)
	done    chan struct{}
	report  verify.Report
	err     error
}

func verifyKey(run types.UID, target string) string { return string(run) + "/" + target }

// start begins a verification unless one is already under way for that key, and returns
// it; nil when limit (> 0) checks already run across all runs: the caller asks again on a
// later pass, and the deadline counts from when the checks start, not from the queue. The
// cap bounds what one operator sends at once (each job holds connections and goroutines
// against a target that may stall every one of them). The job's context has the deadline,
// so the checks stop on their own; it is not the pass's context, which ends with the pass.
func (v *verifications) start(key string, now time.Time, timeout time.Duration, limit int,
	run func(context.Context) (verify.Report, error)) *verifyJob {
	v.mu.Lock()
	defer v.mu.Unlock()
	if j, ok := v.jobs[key]; ok {
		return j
	}
	if limit > 0 && v.running >= limit {
		return nil
	}
	if v.jobs == nil {
		v.jobs = map[string]*verifyJob{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j := &verifyJob{started: now, cancel: cancel, done: make(chan struct{})}
	v.jobs[key] = j
	v.running++
	go func() {
		defer func() {
			v.mu.Lock()
			v.running--
			v.mu.Unlock()
			close(j.done)
		}()
		defer cancel()
		j.report, j.err = run(ctx)
		if j.err == nil && ctx.Err() != nil {
			j.err = ctx.Err()
		}
	}()
	return j
}

// finished says whether the job is done, without waiting.
func (j *verifyJob) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// forget drops a job once its outcome is recorded.
func (v *verifications) forget(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.jobs, key)
}

// forgetRun drops every job of a run (deleted or finished) and stops the running ones:
// never read, they would otherwise hold their slots of the cap, shared by every run,
// until their deadline.
func (v *verifications) forgetRun(run types.UID) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for k, j := range v.jobs {
		if strings.HasPrefix(k, string(run)+"/") {
			j.cancel()
			delete(v.jobs, k)
		}
	}
}
