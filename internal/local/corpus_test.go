package local

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The local mode decides each recorded run of the corpus as the operator does: finish
// reaches the decision committed in internal/engine/testdata/corpus, which controllers'
// TestCorpusDecidedAsLocally checks too.
func TestCorpusDecidedAsTheOperatorDoes(t *testing.T) {
	for _, err := range enginetest.DecideAll(testenv.Root(), func(run *benchv1.BenchmarkRun) error {
		finish(run, false, "", nil)
		return nil
	}) {
		t.Error(err)
	}
}
