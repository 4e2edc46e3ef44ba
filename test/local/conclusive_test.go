package local_test

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
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
	wrong, says := enginetest.Conclusive(run)
	if wrong != "" || run.Status.Phase != benchv1.PhaseSucceeded {
		t.Errorf("phase %s: %s", run.Status.Phase, wrong)
	}
	t.Log(says)
}
