package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// dependency is a CRD the run needs from another operator.
type dependency struct {
	operator string // what to install, in the user's words
	kind     schema.GroupVersionKind
	needed   func(s *scope) bool
}

var dependencies = []dependency{
	{"CloudNativePG", schema.GroupVersionKind{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster"},
		func(s *scope) bool { return s.run.Spec.Database != nil }},
	{"CloudNativePG", schema.GroupVersionKind{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Pooler"},
		func(s *scope) bool {
			return s.run.Spec.Database != nil && s.run.Spec.Database.ConnectVia != benchv1.ConnectViaDirect
		}},
	{"k6-operator", schema.GroupVersionKind{Group: "k6.io", Version: "v1alpha1", Kind: "TestRun"},
		func(*scope) bool { return true }},
	// No prometheus-operator CRD: a run creates no monitoring object; it needs a Prometheus
	// (read and remote-written at their URLs), which gauntlet check probes.
}

// missingDependencyRequeue is slow on purpose: installing an operator takes minutes, and a
// fast requeue would only fill the logs.
const missingDependencyRequeue = time.Minute

// prerequisites checks that the other operators' CRDs are served. A missing one is a
// condition naming it and a slow requeue, never an error (no crash loop, no backoff storm).
func (r *BenchmarkRunReconciler) prerequisites(_ context.Context, s *scope) (ctrl.Result, error) {
	// What the CRD accepts but reaches beyond the run (a volume that never binds holds the
	// node pools; a path that is a database route to the target) is refused here, before
	// the pools are locked. Only before the start: a running run is not failed by an
	// upgrade's new bound.
	if s.run.Status.StartedAt == nil {
		if errs := specs.CheckSpec(&s.run.Spec); len(errs) > 0 {
			return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonInvalidSpec, "the spec is refused: "+errs.ToAggregate().Error())
		}
	}
	var missing []string
	for _, d := range dependencies {
		if !d.needed(s) {
			continue
		}
		if _, err := r.RESTMapper().RESTMapping(d.kind.GroupKind(), d.kind.Version); err != nil {
			if !meta.IsNoMatchError(err) {
				return ctrl.Result{}, fmt.Errorf("looking up %s: %w", d.kind, err)
			}
			missing = append(missing, fmt.Sprintf("%s (%s %s)", d.operator, d.kind.Kind, d.kind.GroupVersion()))
		}
	}
	if len(missing) > 0 {
		msg := "not installed: " + strings.Join(missing, ", ") + "; install them, the run waits"
		if !meta.IsStatusConditionFalse(s.run.Status.Conditions, benchv1.ConditionDependenciesReady) {
			r.Recorder.Eventf(s.run, nil, "Warning", benchv1.ReasonMissingDependency, "CheckDependencies", msg)
		}
		setCondition(s.run, benchv1.ConditionDependenciesReady, metav1.ConditionFalse, benchv1.ReasonMissingDependency, msg)
		return ctrl.Result{RequeueAfter: missingDependencyRequeue}, nil
	}
	setCondition(s.run, benchv1.ConditionDependenciesReady, metav1.ConditionTrue, benchv1.ReasonInstalled, "the CRDs of the operators this run uses are served")
	return ctrl.Result{}, nil
}
