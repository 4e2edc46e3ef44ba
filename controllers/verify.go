package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// maxFailedChecks keeps status small (the schema's bound); the event and the first entries
// say enough.
const maxFailedChecks = benchv1.MaxFailedChecks

// verification runs the contract verifier (internal/verify) from the operator against each
// target's Service before anything is timed. A target that fails is recorded with its
// failed checks and its trials are marked Failed without a TestRun: it is never timed.
// The checks run off the reconcile worker (verifications.go); each pass only looks at how
// far they got, so a target that stalls holds up its own run and no other.
func (r *BenchmarkRunReconciler) verification(_ context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	if meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionTargetsVerified) != nil &&
		!meta.IsStatusConditionPresentAndEqual(run.Status.Conditions, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown) {
		return ctrl.Result{}, nil
	}
	setPhase(run, benchv1.PhaseVerifying)
	var failed, inFlight, queued, queuedInNS, queuedFair []string
	reason := benchv1.ReasonVerifyFailed
	for _, t := range run.Spec.Targets {
		ts := targetStatus(run, t.Name)
		if ts.Verification == benchv1.VerificationPending || ts.Verification == "" {
			done, timedOut, err := r.verifyTarget(s, t, ts)
			switch {
			case errors.Is(err, errNoVerificationSlot):
				queued = append(queued, t.Name)
				continue
			case errors.Is(err, errNoNamespaceSlot):
				queuedInNS = append(queuedInNS, t.Name)
				continue
			case errors.Is(err, errNoFairSlot):
				queuedFair = append(queuedFair, t.Name)
				continue
			case err != nil:
				return ctrl.Result{}, err
			}
			if !done {
				inFlight = append(inFlight, t.Name)
				continue
			}
			if timedOut {
				reason = benchv1.ReasonVerifyTimeout
			}
		}
		if ts.Verification == benchv1.VerificationFailed {
			why := fmt.Sprintf("%s failed verification (%s)", t.Name, strings.Join(ts.FailedChecks[:min(3, len(ts.FailedChecks))], "; "))
			failed = append(failed, why)
			notTimed(run, t.Name, "not timed: "+why)
		}
	}
	if len(inFlight)+len(queued)+len(queuedInNS)+len(queuedFair) > 0 {
		var parts []string
		if len(inFlight) > 0 {
			parts = append(parts, "checking against the contract: "+strings.Join(inFlight, ", "))
		}
		if len(queuedInNS) > 0 {
			parts = append(parts, fmt.Sprintf("waiting for one of namespace %s's %d verification slots (--max-concurrent-verifications-per-namespace), all taken by its runs: %s",
				run.Namespace, r.MaxVerificationsPerNamespace, strings.Join(queuedInNS, ", ")))
		}
		if len(queuedFair) > 0 {
			parts = append(parts, fmt.Sprintf("waiting while other namespaces wait for their fair share of the operator's %d verification slots "+
				"(--max-concurrent-verifications), which namespace %s already holds: %s", r.MaxVerifications, run.Namespace, strings.Join(queuedFair, ", ")))
		}
		if len(queued) > 0 {
			parts = append(parts, fmt.Sprintf("waiting for one of the operator's %d verification slots (--max-concurrent-verifications): %s",
				r.MaxVerifications, strings.Join(queued, ", ")))
		}
		msg := strings.Join(parts, "; ")
		setCondition(run, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown, benchv1.ReasonVerifying, msg)
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	if len(failed) > 0 {
		msg := strings.Join(failed, ", ") + "; its trials are not timed"
		r.Recorder.Eventf(run, nil, "Warning", reason, "Verify", "%s", msg)
		if len(failed) == len(run.Spec.Targets) {
			return r.fail(s, benchv1.ConditionTargetsVerified, reason, msg)
		}
		setCondition(run, benchv1.ConditionTargetsVerified, metav1.ConditionFalse, reason, msg)
		return ctrl.Result{}, nil
	}
	r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonPassed, "Verify", "every target follows the contract")
	setCondition(run, benchv1.ConditionTargetsVerified, metav1.ConditionTrue, benchv1.ReasonPassed, "every target passed the contract checks")
	return ctrl.Result{}, nil
}

// verifyTarget starts a target's checks or picks up their outcome into ts. done is false
// while they run; timedOut says they were cut off at the deadline (the target then counts
// as failed). An error other than the deadline is returned, and the next pass starts over.
func (r *BenchmarkRunReconciler) verifyTarget(s *scope, t benchv1.Target, ts *benchv1.TargetStatus) (done, timedOut bool, err error) {
	key := verifyKey(s.run.UID, t.Name)
	opts := r.verifyOptions(s.run, t)
	lim := verifyLimits{total: r.MaxVerifications, perNamespace: r.MaxVerificationsPerNamespace, forgetWaiter: waiterPolls * r.Timeouts.Poll}
	job, err := r.verifications.start(key, s.run.Namespace, s.now, r.Timeouts.Verify, lim, func(ctx context.Context) (verify.Report, error) {
		return r.Verify(ctx, opts)
	})
	if err != nil {
		return false, false, err
	}
	deadline := fmt.Sprintf("did not finish its contract checks within %v", r.Timeouts.Verify)
	if !job.finished() {
		// The checks honour their context; this is for a verifier that does not.
		if !overdue(s.now, job.started, r.Timeouts.Verify+r.Timeouts.Poll) {
			return false, false, nil
		}
		r.verifications.forget(key)
		ts.Verification, ts.FailedChecks = benchv1.VerificationFailed, []string{deadline}
		return true, true, nil
	}
	r.verifications.forget(key)
	switch {
	case errors.Is(job.err, context.DeadlineExceeded):
		ts.Verification, ts.FailedChecks = benchv1.VerificationFailed, []string{deadline}
		return true, true, nil
	case job.err != nil:
		return false, false, fmt.Errorf("verifying target %s: %w", t.Name, job.err)
	}
	rep := job.report
	ts.Verification, ts.FailedChecks = benchv1.VerificationPassed, nil
	if !rep.Passed() {
		ts.Verification = benchv1.VerificationFailed
		ts.FailedChecks = rep.Failures()[:min(len(rep.Failures()), maxFailedChecks)]
	}
	return true, false, nil
}

// serviceReachWithin bounds the wait for a ready target's Service to accept connections.
const serviceReachWithin = 30 * time.Second

// verifyOptions checks what plan.VerifyEndpoints says the target's trials request, through
// the URL the load will use, as verify.ForPreset decides for the local mode too.
func (r *BenchmarkRunReconciler) verifyOptions(run *benchv1.BenchmarkRun, t benchv1.Target) verify.Options {
	p := r.Presets[t.Preset]
	opts := verify.ForPreset(p, r.TargetURL(run, t), plan.VerifyEndpoints(&run.Spec, run.Status.Trials, t.Name, p))
	// The Deployment is available before kube-proxy has programmed its Service everywhere.
	opts.ReachWithin = serviceReachWithin
	return opts
}

// notTimed marks a target's pending trials Failed with why they never ran.
func notTimed(run *benchv1.BenchmarkRun, target, why string) {
	for i := range run.Status.Trials {
		t := &run.Status.Trials[i]
		if t.Target == target && t.Phase == benchv1.TrialPending {
			t.Phase, t.Message = benchv1.TrialFailed, why
		}
	}
}
