package controllers

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
)

// checkConclusive: a succeeded run says whether its rows support an answer, as in the local
// mode (enginetest.Conclusive). A 2-core machine often flags every row GeneratorBound: the
// run is then Conclusive False, not Ready, Stalled, Failed to kstatus and exit status 7.
func checkConclusive(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	wrong, says := enginetest.Conclusive(run)
	if wrong != "" {
		t.Error(wrong)
	}
	t.Log(says)
}
