package controllers

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/engine/enginetest"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The operator decides each recorded run of the corpus as the local mode does: its results
// phase (and the deferred patch's GitOps conditions) reach the decision committed in
// internal/engine/testdata/corpus, which internal/local's TestCorpusDecidedAsTheOperatorDoes
// checks too.
func TestCorpusDecidedAsLocally(t *testing.T) {
	for _, err := range enginetest.DecideAll(testenv.Root(), func(run *benchv1.BenchmarkRun) error {
		// No cluster behind it: the run's pods and nodes are gone, as after a cleanup.
		c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
		r := &BenchmarkRunReconciler{Client: c, APIReader: c, Recorder: events.NewFakeRecorder(1000)}
		_, err := r.results(context.Background(), &scope{run: run, now: time.Now(), notify: r.eventsOf(run)})
		engine.GitOps(run)
		return err
	}) {
		t.Error(err)
	}
}
