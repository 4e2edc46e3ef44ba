// Package controllers holds the BenchmarkRun reconciler: a short pipeline of phase functions,
// one file per concern, with the status patched once at the end of each pass.
package controllers

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// BenchmarkRunReconciler reconciles BenchmarkRun objects.
type BenchmarkRunReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// scope is what the phases of one pass share; phases record into run.Status and the
// deferred patch writes it once.
type scope struct {
	run *benchv1.BenchmarkRun
}

// phase is one step of the pipeline; a non-zero result or an error ends the pass.
type phase func(ctx context.Context, s *scope) (ctrl.Result, error)

// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs the phases in order for one BenchmarkRun.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := run.DeepCopy()
	s := &scope{run: run}
	defer func() {
		// One status write per pass, from what the phases recorded.
		run.Status.ObservedGeneration = run.Generation
		if patchErr := r.Status().Patch(ctx, run, client.MergeFrom(before)); patchErr != nil && err == nil {
			err = patchErr
		}
	}()
	for _, p := range []phase{r.accept, r.prerequisites} {
		if result, err = p(ctx, s); err != nil || !result.IsZero() {
			return result, err
		}
	}
	return ctrl.Result{}, nil
}

// accept records that the spec was read; the run lifecycle builds on it.
func (r *BenchmarkRunReconciler) accept(_ context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	names := make([]string, 0, len(run.Spec.Targets))
	for _, t := range run.Spec.Targets {
		names = append(names, t.Name)
	}
	run.Status.TargetNames = strings.Join(names, ",")
	if run.Status.Phase == "" {
		run.Status.Phase = benchv1.PhasePending
	}
	if !meta.IsStatusConditionTrue(run.Status.Conditions, ConditionAccepted) {
		r.Recorder.Eventf(run, nil, "Normal", ReasonSpecAccepted, "Accept",
			"accepted %d targets x %d scenarios", len(run.Spec.Targets), len(run.Spec.Scenarios))
	}
	setCondition(run, ConditionAccepted, metav1.ConditionTrue, ReasonSpecAccepted, "the spec passed validation")
	setCondition(run, ConditionReady, metav1.ConditionFalse, ReasonPending, "the run has not finished")
	return ctrl.Result{}, nil
}

func setCondition(run *benchv1.BenchmarkRun, t string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{
		Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: run.Generation,
	})
}

// SetupWithManager registers the reconciler.
func (r *BenchmarkRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkRun{}).Named("benchmarkrun").Complete(r)
}
