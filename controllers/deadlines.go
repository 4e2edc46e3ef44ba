package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// refusedError is a create the API server will refuse however often it is retried: the
// object is invalid (422) or malformed (400), for example a negative CPU quantity the
// BenchmarkRun schema let through. Retrying it would keep the run, and its node pools,
// waiting for ever.
type refusedError struct {
	kind, name string
	err        error
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("the API server refused %s %s: %s", e.kind, e.name, apierrors.ReasonForError(e.err)) + ": " + e.err.Error()
}

func (e *refusedError) Unwrap() error { return e.err }

// createError classifies a failed create: refused for good, or worth a retry.
func createError(o client.Object, err error) error {
	kind := o.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = fmt.Sprintf("%T", o)
		kind = kind[strings.LastIndex(kind, ".")+1:]
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return &refusedError{kind: kind, name: o.GetName(), err: err}
	}
	return fmt.Errorf("creating %s %s: %w", kind, o.GetName(), err)
}

// createFailed fails the run at once when the API server refused a create for good,
// with the API server's own message; any other error is returned for a retry.
func (r *BenchmarkRunReconciler) createFailed(s *scope, condition string, err error) (ctrl.Result, error) {
	var refused *refusedError
	if errors.As(err, &refused) {
		return r.fail(s, condition, benchv1.ReasonCreateRefused, refused.Error())
	}
	return ctrl.Result{}, err
}

// overdue says whether a wait that began at since has passed its limit.
func overdue(now, since time.Time, limit time.Duration) bool {
	return !since.IsZero() && now.Sub(since) > limit
}

// deploymentWaiting is why the Deployment's first waiting pod waits, as "; REASON: message"
// for a status message (a pool no node matches, too little CPU, an image that cannot be
// pulled), or "" when no pod says.
func (r *BenchmarkRunReconciler) deploymentWaiting(ctx context.Context, dep *appsv1.Deployment) string {
	if dep.Spec.Selector == nil {
		return ""
	}
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(dep.Namespace), client.MatchingLabels(dep.Spec.Selector.MatchLabels)); err != nil {
		return ""
	}
	for i := range pods.Items {
		if w := podWaiting(&pods.Items[i]); w != "" {
			return "; " + w
		}
	}
	return ""
}

// podWaiting says why a pod is not running yet, in the scheduler's or kubelet's words
// (Unschedulable: 0/3 nodes are available...; ImagePullBackOff), or "" when nothing is said.
func podWaiting(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return strings.TrimSpace(c.Reason + ": " + c.Message)
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && w.Reason != "" {
			return strings.TrimSpace(w.Reason + ": " + w.Message)
		}
	}
	return ""
}
