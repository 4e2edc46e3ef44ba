package controllers

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;create;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;create;delete

// targets deploys every target (Deployment + Service from the specs builders, and the
// run's NetworkPolicy) and waits until each has an available pod. Each target's wait is
// counted from its own Deployment's creation, not from the database's start.
func (r *BenchmarkRunReconciler) targets(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	if meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionTargetsReady) {
		return ctrl.Result{}, nil
	}
	setPhase(run, benchv1.PhaseProvisioning)
	if r.Config.NetworkPolicy.Enabled {
		if err := r.createAll(ctx, s, specs.TargetNetworkPolicy(run, r.Config)); err != nil {
			return r.createFailed(s, benchv1.ConditionTargetsReady, err)
		}
	}
	var waiting, late []string
	for _, t := range run.Spec.Targets {
		if _, err := specs.TargetImage(t, r.Config); err != nil {
			return r.fail(s, benchv1.ConditionTargetsReady, benchv1.ReasonNoImage, err.Error())
		}
		if err := r.createAll(ctx, s, specs.TargetDeployment(run, t, r.Config), specs.TargetService(run, t)); err != nil {
			return r.createFailed(s, benchv1.ConditionTargetsReady, err)
		}
		dep := &appsv1.Deployment{}
		err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: specs.TargetName(run, t.Name)}, dep)
		if apierrors.IsNotFound(err) {
			// Just created, not in the informer cache yet: it counts as not available.
			waiting = append(waiting, t.Name+" (not observed yet)")
			continue
		}
		if err != nil {
			return ctrl.Result{}, err
		}
		ready := dep.Status.ObservedGeneration >= dep.Generation && dep.Status.AvailableReplicas >= 1
		targetStatus(run, t.Name).Ready = ready
		if !ready {
			why := fmt.Sprintf("%s (%d/1 available%s)", t.Name, dep.Status.AvailableReplicas, r.deploymentWaiting(ctx, dep))
			waiting = append(waiting, why)
			if overdue(s.now, dep.CreationTimestamp.Time, r.Timeouts.Targets) {
				late = append(late, why)
			}
		}
	}
	if w, err := r.nullResponder(ctx, s); err != nil {
		return r.createFailed(s, benchv1.ConditionTargetsReady, err)
	} else if w != "" {
		waiting = append(waiting, w)
	}
	if len(late) > 0 {
		return r.fail(s, benchv1.ConditionTargetsReady, benchv1.ReasonTargetsTimeout,
			fmt.Sprintf("targets did not become available within %v of their creation: %s", r.Timeouts.Targets, strings.Join(late, ", ")))
	}
	if len(waiting) > 0 {
		msg := "waiting for targets: " + strings.Join(waiting, ", ")
		setCondition(run, benchv1.ConditionTargetsReady, metav1.ConditionFalse, benchv1.ReasonDeploying, msg)
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonAvailable, "Deploy", "%d targets are available", len(run.Spec.Targets))
	setCondition(run, benchv1.ConditionTargetsReady, metav1.ConditionTrue, benchv1.ReasonAvailable, "every target has an available pod")
	return ctrl.Result{}, nil
}

// targetStatus finds or adds a target's entry in status.targets.
func targetStatus(run *benchv1.BenchmarkRun, name string) *benchv1.TargetStatus {
	for i := range run.Status.Targets {
		if run.Status.Targets[i].Name == name {
			return &run.Status.Targets[i]
		}
	}
	run.Status.Targets = append(run.Status.Targets, benchv1.TargetStatus{Name: name, Verification: benchv1.VerificationPending})
	return &run.Status.Targets[len(run.Status.Targets)-1]
}
