//go:build lab && labfull

package lab

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// checkConclusive: a finished seed run says whether its rows support an answer, as the
// local mode does (enginetest.Conclusive): with no valid row (seed 001 on the lab's one node,
// usually) Conclusive False, not Ready, Stalled, Failed to kstatus, exit status 7. It
// returns the exit status the run's status implies.
func checkConclusive(t *testing.T, run *benchv1.BenchmarkRun) int {
	t.Helper()
	wrong, says := enginetest.Conclusive(run)
	if wrong != "" {
		t.Errorf("%s: %s", run.Name, wrong)
	}
	t.Logf("%s: %s", run.Name, says)
	code, _ := outcome.Of(run)
	return int(code)
}
