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
	mu      sync.Mutex
	jobs    map[string]*verifyJob
	running int            // jobs whose checks are under way, across every run
	inNS    map[string]int // of those, each namespace's
}

// DefaultMaxVerificationsPerNamespace is half the manager's default of 8 verifications at
// once: one tenant keeps enough to verify a run's targets together, and as much is left to
// the others.
const DefaultMaxVerificationsPerNamespace = 4

// verifyLimits cap the jobs under way: total across every run, perNamespace across one
// namespace's runs, so one tenant's many runs leave slots to the others. Zero is no cap.
type verifyLimits struct {
	total, perNamespace int
}

// errNoVerificationSlot: the operator's cap on verifications at once is reached; the
// target waits its turn.
var errNoVerificationSlot = errors.New("no verification slot free")

// errNoNamespaceSlot: the run's namespace already has its share of verifications under
// way; the target waits for one of them to end.
var errNoNamespaceSlot = errors.New("no verification slot free in the namespace")

// verifyJob is one target's verification in flight or done.
type verifyJob struct {
	started time.Time
	cancel  context.CancelFunc // stops the checks early (forgetRun)
	done    chan struct{}
	report  verify.Report
	err     error
}

func verifyKey(run types.UID, target string) string { return string(run) + "/" + target }

// start begins a verification of a run in namespace ns unless one is already under way
// for that key, and returns it; errNoNamespaceSlot when lim.perNamespace checks already
// run in ns, errNoVerificationSlot when lim.total run across all runs: the caller asks
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
	if lim.perNamespace > 0 && v.inNS[ns] >= lim.perNamespace {
		return nil, errNoNamespaceSlot
	}
	if lim.total > 0 && v.running >= lim.total {
		return nil, errNoVerificationSlot
	}
	if v.jobs == nil {
		v.jobs, v.inNS = map[string]*verifyJob{}, map[string]int{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j := &verifyJob{started: now, cancel: cancel, done: make(chan struct{})}
	v.jobs[key] = j
	v.running++
	v.inNS[ns]++
	go func() {
		defer func() {
			v.mu.Lock()
			v.running--
			if v.inNS[ns]--; v.inNS[ns] == 0 {
				delete(v.inNS, ns)
			}
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
