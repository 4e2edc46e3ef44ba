package controllers

import (
	"context"
	"errors"
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
	mu    sync.Mutex
	jobs  map[string]*verifyJob
	slots verifySlots // the slots the jobs under way hold, and who waits for one
}

// DefaultMaxVerificationsPerNamespace is half the manager's default of 8 verifications at
// once: one tenant keeps enough to verify a run's targets together, and as much is left to
// the others.
const DefaultMaxVerificationsPerNamespace = 4

// verifyLimits cap the jobs under way: total across every run, perNamespace across one
// namespace's runs, so one tenant's many runs leave slots to the others. Zero is no cap.
// Within total, waiting namespaces get their fair share first (verifySlots); a waiter that
// has not asked again for forgetWaiter is forgotten.
type verifyLimits struct {
	total, perNamespace int
	forgetWaiter        time.Duration
}

// waiterPolls is how many poll intervals a waiting target may go without asking again
// before it no longer holds a place: a run waiting for a slot asks on every pass.
const waiterPolls = 5

// errNoVerificationSlot: the operator's cap on verifications at once is reached; the
// target waits its turn.
var errNoVerificationSlot = errors.New("no verification slot free")

// errNoNamespaceSlot: the run's namespace already has its share of verifications under
// way; the target waits for one of them to end.
var errNoNamespaceSlot = errors.New("no verification slot free in the namespace")

// verifyJob is one target's verification in flight or done.
type verifyJob struct {
	ns      string
	held    bool // the job holds a slot (guarded by verifications.mu)
	started time.Time
	cancel  context.CancelFunc // stops the checks early (forgetRun)
	done    chan struct{}
	report  verify.Report
	err     error
}

func verifyKey(run types.UID, target string) string { return string(run) + "/" + target }

// start begins a verification of a run in namespace ns unless one is already under way
// for that key, and returns it; errNoNamespaceSlot when lim.perNamespace checks already
// run in ns, errNoVerificationSlot when lim.total run across all runs, errNoFairSlot when
// ns holds its fair share while another namespace waits: the caller asks
// again on a later pass, and the deadline counts from when the checks start, not from the
// queue. The caps bound what one operator sends at once (each job holds connections and
// goroutines against a target that may stall every one of them) and what one namespace
// may hold of it. The job's context has the deadline, so the checks stop on their own; it
// is not the pass's context, which ends with the pass.
func (v *verifications) start(key, ns string, now time.Time, timeout time.Duration, lim verifyLimits,
	run func(context.Context) (verify.Report, error)) (*verifyJob, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if j, ok := v.jobs[key]; ok {
		return j, nil
	}
	if err := v.slots.take(key, ns, now, lim); err != nil {
		return nil, err
	}
	if v.jobs == nil {
		v.jobs = map[string]*verifyJob{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j := &verifyJob{ns: ns, held: true, started: now, cancel: cancel, done: make(chan struct{})}
	v.jobs[key] = j
	go func() {
		defer func() {
			v.mu.Lock()
			v.releaseLocked(j)
			v.mu.Unlock()
			close(j.done)
		}()
		defer cancel()
		j.report, j.err = run(ctx)
		if j.err == nil && ctx.Err() != nil {
			j.err = ctx.Err()
		}
	}()
	return j, nil
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

// releaseLocked gives back the job's slot, once.
func (v *verifications) releaseLocked(j *verifyJob) {
	if j.held {
		j.held = false
		v.slots.release(j.ns)
	}
}

// forgetRun drops every job of a run (deleted or finished), stops the running ones and
// gives their slots back at once, and drops the run's places among the waiters: never
// read, its jobs would otherwise hold slots of the cap, shared by every run, until their
// checks return (a check that ignores its context: until it gives up by itself).
func (v *verifications) forgetRun(run types.UID) {
	v.mu.Lock()
	defer v.mu.Unlock()
	prefix := string(run) + "/"
	for k, j := range v.jobs {
		if strings.HasPrefix(k, prefix) {
			j.cancel()
			v.releaseLocked(j)
			delete(v.jobs, k)
		}
	}
	v.slots.forgetWaiters(prefix)
}
