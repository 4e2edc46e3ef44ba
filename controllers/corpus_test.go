package controllers

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/tools/events"

	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The operator decides each recorded run of the corpus as the local mode does: its results
// phase (and the deferred patch's GitOps conditions) reach the decision committed in
// internal/engine/testdata/corpus, which internal/local's TestCorpusDecidedAsTheOperatorDoes
// checks too.
func TestCorpusDecidedAsLocally(t *testing.T) {
	root := testenv.Root()
	for _, name := range enginetest.Cases {
		run, err := enginetest.Load(root, name)
		if err != nil {
			t.Fatal(err)
		}
		r := &BenchmarkRunReconciler{Recorder: events.NewFakeRecorder(1000)}
		s := &scope{run: run, now: time.Now(), notify: r.eventsOf(run)}
		if _, err := r.results(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		engine.GitOps(run)
		if err := enginetest.Check(root, name, enginetest.Decision(run)); err != nil {
			t.Error(err)
		}
	}
}
