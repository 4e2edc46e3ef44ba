package controllers

import (
	"strings"
	"testing"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// checkConclusive: a succeeded run says whether its rows support an answer. With no valid
// row (a 2-core machine often flags every row GeneratorBound) it is Conclusive False with
// NoValidResult, not Ready, Stalled, Failed to kstatus and exit status 7, as in the local
// mode; otherwise Ready, neither stalled nor reconciling, and Current to kstatus.
func checkConclusive(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	valid := 0
	for _, r := range run.Status.Results {
		if r.Valid {
			valid++
		}
	}
	conds := run.Status.Conditions
	c := meta.FindStatusCondition(conds, benchv1.ConditionConclusive)
	code, _ := outcome.Of(run)
	u := run.DeepCopy()
	u.APIVersion, u.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	reconciling := meta.IsStatusConditionTrue(conds, benchv1.ConditionReconciling)
	switch {
	case c == nil:
		t.Errorf("no Conclusive condition on a succeeded run: %+v", conds)
	case valid == 0:
		ready := meta.FindStatusCondition(conds, benchv1.ConditionReady)
		if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonNoValidResult || code != outcome.Inconclusive || reconciling ||
			ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != benchv1.ReasonInconclusive ||
			!meta.IsStatusConditionTrue(conds, benchv1.ConditionStalled) || ks.Status != status.FailedStatus || !strings.Contains(ks.Message, "inconclusive") {
			t.Errorf("no valid row, yet Conclusive %s %s, exit %d, kstatus %s %q: %+v", c.Status, c.Reason, code, ks.Status, ks.Message, conds)
		}
		t.Logf("no valid row: %s; exit %d, kstatus %s", c.Message, code, ks.Status)
	case c.Status == metav1.ConditionTrue:
		if !meta.IsStatusConditionTrue(conds, benchv1.ConditionReady) || meta.IsStatusConditionTrue(conds, benchv1.ConditionStalled) || reconciling ||
			ks.Status != status.CurrentStatus {
			t.Errorf("conclusive, yet not Ready, or stalled or reconciling, or kstatus %s: %+v", ks.Status, conds)
		}
	case c.Reason != benchv1.ReasonHeadlineInconclusive:
		t.Errorf("%d valid rows, yet Conclusive False %s: %s", valid, c.Reason, c.Message)
	}
}
