package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// finalizerName guards a run's deletion. Owner references alone would leave the order and
// the timing to the garbage collector: a TestRun could keep loading a target that is being
// torn down, and where no collector runs (envtest, a stalled controller-manager) nothing
// would go at all. The finalizer stops the TestRuns first, deletes everything else the run
// created, and lets the run go only once none of it is left.
const finalizerName = "gauntlet.dev/cleanup"

// createdKinds are the kinds a run creates, TestRuns first so the load stops before its
// target goes.
var createdKinds = []schema.GroupVersionKind{
	specs.TestRunGVK,
	{Version: "v1", Kind: "ConfigMap"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Version: "v1", Kind: "Service"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Pooler"},
	{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster"},
}

func (r *BenchmarkRunReconciler) ensureFinalizer(ctx context.Context, run *benchv1.BenchmarkRun) (bool, error) {
	if controllerutil.ContainsFinalizer(run, finalizerName) {
		return false, nil
	}
	// The optimistic lock: a merge patch replaces the whole list, so one made from a stale
	// copy would drop a finalizer another controller added meanwhile; with the lock it
	// fails instead, and the next pass starts from the current object.
	patch := client.MergeFromWithOptions(run.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(run, finalizerName)
	if err := r.Patch(ctx, run, patch); apierrors.IsConflict(err) {
		return true, nil // the update that conflicted triggers the next pass
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// finalize runs when the run is deleted: it deletes what the run created and removes the
// finalizer once nothing is left.
func (r *BenchmarkRunReconciler) finalize(ctx context.Context, run *benchv1.BenchmarkRun) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(run, finalizerName) {
		return ctrl.Result{}, nil
	}
	r.verifications.forgetRun(run.UID)
	r.stopRunWire(ctx, run, time.Now())
	left, err := r.deleteCreated(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(left) > 0 {
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	patch := client.MergeFromWithOptions(run.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(run, finalizerName)
	if err := r.Patch(ctx, run, patch); apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil // changed meanwhile: again from the current object
	} else if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return ctrl.Result{}, nil
}

// deleteCreated deletes every object the run owns and returns those still present
// (deleted, but waiting for their own finalizers).
func (r *BenchmarkRunReconciler) deleteCreated(ctx context.Context, run *benchv1.BenchmarkRun) ([]string, error) {
	var left []string
	for _, gvk := range createdKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels{specs.LabelRun: specs.LabelValue(run.Name)})
		if meta.IsNoMatchError(err) {
			continue // that operator is not installed: the run created none
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if !ownedBy(o, run) {
				continue
			}
			left = append(left, gvk.Kind+"/"+o.GetName())
			if o.GetDeletionTimestamp() != nil {
				continue
			}
			if err := r.Delete(ctx, o, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("deleting %s %s: %w", gvk.Kind, o.GetName(), err)
			}
		}
	}
	return left, nil
}

func ownedBy(o client.Object, run *benchv1.BenchmarkRun) bool {
	for _, ref := range o.GetOwnerReferences() {
		if ref.UID == run.UID {
			return true
		}
	}
	return false
}

// cleanup applies the cleanup policy once the run has finished, then its TTL.
// Whatever the policy, TestRuns still loading are stopped and old ones pruned first, and
// verifications still in flight are dropped.
func (r *BenchmarkRunReconciler) cleanup(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	r.verifications.forgetRun(run.UID)
	r.stopRunWire(ctx, run, s.now)
	if _, err := r.pruneTestRuns(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	policy := run.Spec.Cleanup.Policy
	if policy == "Always" || ((policy == "OnSuccess" || policy == "") && run.Status.Phase == benchv1.PhaseSucceeded) {
		left, err := r.deleteCreated(ctx, run)
		if err != nil {
			return ctrl.Result{}, err
		}
		if len(left) > 0 {
			r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonCleanedUp, "Cleanup", "deleting %d objects (cleanup policy %s): %s",
				len(left), policy, strings.Join(left, ", "))
			return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
		}
	} else if n, err := r.scaleDownLeftovers(ctx, run); err != nil {
		return ctrl.Result{}, err
	} else if n > 0 {
		r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonCleanedUp, "Cleanup",
			"scaled %d Deployments to zero: the run is finished and keeps its objects (cleanup policy %s), not its node pools", n, policy)
	}
	ttl := run.Spec.Cleanup.TTLSecondsAfterFinished
	if ttl == nil || run.Status.FinishedAt == nil {
		return ctrl.Result{}, nil
	}
	if wait := run.Status.FinishedAt.Add(time.Duration(*ttl) * time.Second).Sub(s.now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return ctrl.Result{}, client.IgnoreNotFound(r.Delete(ctx, run))
}
