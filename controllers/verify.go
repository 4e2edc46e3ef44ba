package controllers

import (
	"context"
	"fmt"
	"strings"

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
func (r *BenchmarkRunReconciler) verification(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	if meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionTargetsVerified) != nil &&
		!meta.IsStatusConditionPresentAndEqual(run.Status.Conditions, benchv1.ConditionTargetsVerified, metav1.ConditionUnknown) {
		return ctrl.Result{}, nil
	}
	setPhase(run, benchv1.PhaseVerifying)
	var failed []string
	for _, t := range run.Spec.Targets {
		ts := targetStatus(run, t.Name)
		if ts.Verification == benchv1.VerificationPending || ts.Verification == "" {
			rep, err := r.Verify(ctx, r.verifyOptions(run, t))
			if err != nil {
				return ctrl.Result{}, fmt.Errorf("verifying target %s: %w", t.Name, err)
			}
			ts.Verification, ts.FailedChecks = benchv1.VerificationPassed, nil
			if !rep.Passed() {
				ts.Verification = benchv1.VerificationFailed
				ts.FailedChecks = rep.Failures()[:min(len(rep.Failures()), maxFailedChecks)]
			}
		}
		if ts.Verification == benchv1.VerificationFailed {
			why := fmt.Sprintf("%s failed verification (%s)", t.Name, strings.Join(ts.FailedChecks[:min(3, len(ts.FailedChecks))], "; "))
			failed = append(failed, why)
			notTimed(run, t.Name, "not timed: "+why)
		}
	}
	if len(failed) > 0 {
		msg := strings.Join(failed, ", ") + "; its trials are not timed"
		r.Recorder.Eventf(run, nil, "Warning", ReasonVerifyFailed, "Verify", "%s", msg)
		if len(failed) == len(run.Spec.Targets) {
			return r.fail(s, benchv1.ConditionTargetsVerified, ReasonVerifyFailed, msg)
		}
		setCondition(run, benchv1.ConditionTargetsVerified, metav1.ConditionFalse, ReasonVerifyFailed, msg)
		return ctrl.Result{}, nil
	}
	r.Recorder.Eventf(run, nil, "Normal", ReasonPassed, "Verify", "every target follows the contract")
	setCondition(run, benchv1.ConditionTargetsVerified, metav1.ConditionTrue, ReasonPassed, "every target passed the contract checks")
	return ctrl.Result{}, nil
}

// verifyOptions checks what plan.VerifyEndpoints says the target's trials request, through
// the URL the load will use, as verify.ForPreset decides for the local mode too.
func (r *BenchmarkRunReconciler) verifyOptions(run *benchv1.BenchmarkRun, t benchv1.Target) verify.Options {
	p := r.Presets[t.Preset]
	return verify.ForPreset(p, r.TargetURL(run, t), plan.VerifyEndpoints(&run.Spec, run.Status.Trials, t.Name, p))
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
