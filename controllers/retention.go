package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// DefaultKeepTestRuns is how many finished TestRuns a run keeps for debugging.
const DefaultKeepTestRuns = 2

// pruneTestRuns deletes the TestRuns of finished trials whose figures are in status,
// except the last KeepTestRuns, with their plan ConfigMaps and k6 pods: a long run would
// otherwise pile up hundreds of them. A TestRun that k6-operator has not finished (its
// trial failed: a deadline, drift) is deleted at once whatever its age: its runners may
// still load the node pools, under the next trial or another run. It returns those still
// stopping, which the next trial waits for.
func (r *BenchmarkRunReconciler) pruneTestRuns(ctx context.Context, run *benchv1.BenchmarkRun) ([]string, error) {
	keep := map[string]bool{}
	for i := len(run.Status.Trials) - 1; i >= 0 && len(keep) < max(r.KeepTestRuns, 0); i-- {
		t := run.Status.Trials[i]
		if t.TestRun != "" && (t.Phase == benchv1.TrialSucceeded || t.Phase == benchv1.TrialFailed) {
			keep[t.TestRun] = true
		}
	}
	done := map[string]bool{}
	for _, t := range run.Status.Trials {
		if t.TestRun != "" && (t.Phase == benchv1.TrialSucceeded || t.Phase == benchv1.TrialFailed) {
			done[t.TestRun] = true
		}
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(specs.TestRunGVK.GroupVersion().WithKind("TestRunList"))
	err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels{specs.LabelRun: specs.LabelValue(run.Name)})
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing TestRuns: %w", err)
	}
	var stopping []string
	for i := range list.Items {
		tr := &list.Items[i]
		if !ownedBy(tr, run) || !done[tr.GetName()] {
			continue
		}
		st, _ := specs.ReadTestRunStatus(tr)
		stillLoading := st.Stage != specs.StageFinished && st.Stage != specs.StageError
		if stillLoading {
			stopping = append(stopping, tr.GetName())
		}
		if tr.GetDeletionTimestamp() != nil || keep[tr.GetName()] && !stillLoading {
			continue
		}
		if err := r.deleteTestRun(ctx, tr); err != nil {
			return stopping, err
		}
	}
	return stopping, nil
}

// deleteTestRun deletes a TestRun, its plan ConfigMap (same name) and the pods k6-operator
// made for it (initializer, starter, runners). The garbage collector would take the pods
// through k6-operator's Jobs eventually; deleting them now frees the pool at once.
func (r *BenchmarkRunReconciler) deleteTestRun(ctx context.Context, tr *unstructured.Unstructured) error {
	ns, name := tr.GetNamespace(), tr.GetName()
	if err := r.Delete(ctx, tr, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting TestRun %s: %w", name, err)
	}
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name = ns, name
	if err := r.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ConfigMap %s: %w", name, err)
	}
	// k6-operator's labels on every pod of a TestRun.
	if err := r.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.MatchingLabels{"app": "k6", "k6_cr": name}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the pods of TestRun %s: %w", name, err)
	}
	return nil
}
