package local

import (
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The local mode decides each recorded run of the corpus as the operator does: finish
// reaches the decision committed in internal/engine/testdata/corpus, which controllers'
// TestCorpusDecidedAsLocally checks too.
func TestCorpusDecidedAsTheOperatorDoes(t *testing.T) {
	root := testenv.Root()
	for _, name := range enginetest.Cases {
		run, err := enginetest.Load(root, name)
		if err != nil {
			t.Fatal(err)
		}
		finish(run, false, "", nil)
		if err := enginetest.Check(root, name, enginetest.Decision(run)); err != nil {
			t.Error(err)
		}
	}
}
