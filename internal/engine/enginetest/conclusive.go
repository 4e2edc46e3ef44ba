package enginetest

import (
	"fmt"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// Kstatus is how Flux's health check (kstatus) reads run.
func Kstatus(run *benchv1.BenchmarkRun) (*status.Result, error) {
	u := run.DeepCopy()
	u.APIVersion, u.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(u)
	if err != nil {
		return nil, err
	}
	return status.Compute(&unstructured.Unstructured{Object: obj})
}

// Conclusive checks what a succeeded run says of its rows, in either mode: with no valid row
// it is Conclusive False with NoValidResult, Ready False and Stalled True with Inconclusive,
// Failed to kstatus with a message saying so, and exit status 7; with a valid row it is
// Conclusive True (Ready, not Stalled, Current to kstatus) unless its headline is
// inconclusive. It returns what is wrong ("" when nothing) and what the run says.
func Conclusive(run *benchv1.BenchmarkRun) (wrong, says string) {
	valid := 0
	for _, r := range run.Status.Results {
		if r.Valid {
			valid++
		}
	}
	conds := run.Status.Conditions
	c := meta.FindStatusCondition(conds, benchv1.ConditionConclusive)
	code, _ := outcome.Of(run)
	ks, err := Kstatus(run)
	if err != nil {
		return err.Error(), ""
	}
	ready, stalled := meta.FindStatusCondition(conds, benchv1.ConditionReady), meta.IsStatusConditionTrue(conds, benchv1.ConditionStalled)
	reconciling := meta.IsStatusConditionTrue(conds, benchv1.ConditionReconciling)
	if c == nil || ready == nil {
		return fmt.Sprintf("no Conclusive or Ready condition on a finished run: %+v", conds), ""
	}
	says = fmt.Sprintf("%d of %d rows valid; Conclusive=%s %s (%s); exit %d; kstatus %s: %s",
		valid, len(run.Status.Results), c.Status, c.Reason, c.Message, code, ks.Status, ks.Message)
	switch {
	case valid == 0:
		if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonNoValidResult || code != outcome.Inconclusive || reconciling ||
			ready.Status != metav1.ConditionFalse || ready.Reason != benchv1.ReasonInconclusive || !stalled ||
			ks.Status != status.FailedStatus || !strings.Contains(ks.Message, "inconclusive") {
			return "no valid row, yet " + says, says
		}
	case c.Status == metav1.ConditionTrue:
		if ready.Status != metav1.ConditionTrue || stalled || reconciling || ks.Status != status.CurrentStatus {
			return "conclusive, yet not Ready, or stalled or reconciling: " + says, says
		}
	case c.Reason != benchv1.ReasonHeadlineInconclusive:
		return "valid rows, yet " + says, says
	}
	return "", says
}
