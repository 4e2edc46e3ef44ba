package controllers

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// nameConflict is the error of an existing object that is not the run's; it fails the run.
type nameConflict struct {
	condition string
	msg       string
}

func (c *nameConflict) Error() string { return c.msg }

// checkOwned reads an object that already exists (uncached: it may be someone else's, which
// the cache does not hold) and refuses it unless it carries this run's owner reference
// (ownedBy, by UID). Object names are hashed per run, so an object in the way is a hand-made
// one or a hash collision: it is never measured as if it were the run's.
func (r *BenchmarkRunReconciler) checkOwned(ctx context.Context, run *benchv1.BenchmarkRun, want client.Object) error {
	got := want.DeepCopyObject().(client.Object)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
		return fmt.Errorf("reading %T %s, which already exists: %w", want, want.GetName(), err)
	}
	if ownedBy(got, run) {
		return nil
	}
	owner := "no controller"
	if ref := metav1.GetControllerOf(got); ref != nil {
		owner = fmt.Sprintf("controller %s %s", ref.Kind, ref.Name)
	}
	return &nameConflict{condition: conditionFor(want), msg: fmt.Sprintf(
		"%s %s/%s already exists and is not this run's (it has %s); rename the run or remove the object",
		r.kindOf(want), want.GetNamespace(), want.GetName(), owner)}
}

// conditionFor is the step condition an object belongs to, from the builders' app label.
func conditionFor(obj client.Object) string {
	switch obj.GetLabels()[specs.LabelName] {
	case specs.AppTarget:
		return benchv1.ConditionTargetsReady
	case specs.AppDatabase, specs.AppPooler, specs.AppSchema:
		return benchv1.ConditionDatabaseReady
	}
	return benchv1.ConditionComplete
}

func (r *BenchmarkRunReconciler) kindOf(obj client.Object) string {
	if gvk, err := apiutil.GVKForObject(obj, r.Scheme()); err == nil {
		return gvk.Kind
	}
	return fmt.Sprintf("%T", obj)
}

// asConflict finds a nameConflict in err.
func asConflict(err error) *nameConflict {
	var c *nameConflict
	if errors.As(err, &c) {
		return c
	}
	return nil
}
