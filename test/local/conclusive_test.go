package local_test

import (
	"strings"
	"testing"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// checkNoValidResult: a run whose every row is invalid finished its trials but supports no
// answer. It says so in Conclusive (the flags counted), is not Ready and is Stalled (what
// Flux's kstatus reads as Failed, with the reason), and exits 7, never 0.
func checkNoValidResult(t *testing.T, run *benchv1.BenchmarkRun, code int) {
	t.Helper()
	if code != int(outcome.Inconclusive) {
		t.Errorf("exit status %d for a run with no valid row, want %d (Inconclusive)", code, outcome.Inconclusive)
	}
	st := run.Status
	if run.Status.Phase != benchv1.PhaseSucceeded || !hasCondition(st, benchv1.ConditionConclusive, "False", benchv1.ReasonNoValidResult) ||
		!hasCondition(st, benchv1.ConditionReady, "False", benchv1.ReasonInconclusive) ||
		!hasCondition(st, benchv1.ConditionStalled, "True", benchv1.ReasonInconclusive) {
		t.Errorf("phase %s, conditions %+v: want Succeeded, Conclusive False NoValidResult, Ready False and Stalled True Inconclusive",
			st.Phase, st.Conditions)
	}
	run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil || res.Status != status.FailedStatus || !strings.Contains(res.Message, "inconclusive") {
		t.Errorf("kstatus: %v %+v, want Failed saying inconclusive", err, res)
	}
}
