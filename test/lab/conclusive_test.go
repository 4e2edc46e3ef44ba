//go:build lab && labfull

package lab

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

// checkConclusive: a finished seed run says whether its rows support an answer, as the
// local mode does. With no valid row (seed 001 on the lab's one node, usually) it is
// Conclusive False with the reason NoValidResult, not Ready, Stalled (kstatus reads it
// Failed and says why), and its exit status is 7; otherwise Conclusive is True unless the
// headline is inconclusive. It returns the exit status the run's status implies.
func checkConclusive(t *testing.T, run *benchv1.BenchmarkRun) int {
	t.Helper()
	valid := 0
	for _, r := range run.Status.Results {
		if r.Valid {
			valid++
		}
	}
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive)
	code, _ := outcome.Of(run)
	run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c == nil:
		t.Errorf("%s: no Conclusive condition on a finished run", run.Name)
	case valid == 0:
		ready := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionReady)
		if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonNoValidResult || code != outcome.Inconclusive ||
			ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != benchv1.ReasonInconclusive ||
			ks.Status != status.FailedStatus || !strings.Contains(ks.Message, "inconclusive") {
			t.Errorf("%s: no valid row, yet Conclusive %s %s, Ready %+v, exit %d, kstatus %s %q", run.Name, c.Status, c.Reason, ready, code, ks.Status, ks.Message)
		}
		t.Logf("%s: no valid row: Conclusive False (%s), exit %d, kstatus %s: %s", run.Name, c.Message, code, ks.Status, ks.Message)
	case c.Status == metav1.ConditionFalse && c.Reason != benchv1.ReasonHeadlineInconclusive:
		t.Errorf("%s: %d valid rows, yet Conclusive False %s: %s", run.Name, valid, c.Reason, c.Message)
	case c.Status == metav1.ConditionTrue && ks.Status != status.CurrentStatus:
		t.Errorf("%s: conclusive, yet kstatus %s %q", run.Name, ks.Status, ks.Message)
	}
	return int(code)
}
