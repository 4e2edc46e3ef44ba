// Package opmetrics exports what BenchmarkRuns measured as Prometheus metrics on the
// manager's metrics endpoint: every result row's median figures, the run's phase and its
// trial progress. The reconciler records each run's status in a Store after every pass and
// forgets the run when it is gone; the Store is a prometheus.Collector that renders exactly
// the runs it holds, so a deleted run's series disappear at the next scrape.
//
// Label values are bounded: namespace, run, target and scenario names are DNS labels from
// the spec (their length and count bounded by the CRD schema), the preset is a folder name,
// the load point an integer, and phase, quantile, flag and verdict come from fixed sets.
// Free-form text (messages, headlines) never becomes a label.
package opmetrics

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// Store holds the last observed status of every run. A nil *Store records nothing, so
// reconcilers built without one (tests, the local mode) need no special case.
type Store struct {
	mu   sync.RWMutex
	runs map[types.NamespacedName]runSnapshot
}

// runSnapshot is the part of a run's status the metrics read, copied so the reconciler
// may go on changing its object.
type runSnapshot struct {
	phase       benchv1.Phase
	done, total int
	presets     map[string]string // target name → preset label
	openModel   bool
	rows        []benchv1.ResultRow
}

// NewStore returns an empty Store; register it with prometheus.Registerer.MustRegister.
func NewStore() *Store {
	return &Store{runs: map[types.NamespacedName]runSnapshot{}}
}

// Observe records run's current status, replacing what was recorded before.
func (s *Store) Observe(run *benchv1.BenchmarkRun) {
	if s == nil || run == nil {
		return
	}
	done, total := results.TrialCounts(run.Status.Trials)
	snap := runSnapshot{
		phase: run.Status.Phase, done: done, total: total,
		presets:   map[string]string{},
		openModel: run.Spec.Load.Model != benchv1.LoadModelClosed,
		rows:      make([]benchv1.ResultRow, len(run.Status.Results)),
	}
	for _, t := range run.Spec.Targets {
		snap.presets[t.Name] = presetLabel(t)
	}
	for i := range run.Status.Results {
		run.Status.Results[i].DeepCopyInto(&snap.rows[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[types.NamespacedName{Namespace: run.Namespace, Name: run.Name}] = snap
}

// Forget drops a run's series: call it when the run is deleted.
func (s *Store) Forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, key)
}

// presetLabel is the target's preset, or "image" for a bring-your-own image (whose
// reference is free-form and stays out of the labels).
func presetLabel(t benchv1.Target) string {
	if t.Preset != "" {
		return t.Preset
	}
	return "image"
}
