// Package search is the capacity search of spec.load.search: from the trials a run has
// measured so far, it replays each search's steps, plans the next trials and reports the
// answer. It keeps no state of its own: the status's trials are the whole history, so the
// operator (after a restart) and the local mode reach the same steps from the same results.
package search

import (
	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// Defaults of spec.load.search (the schema defaults them too; these cover specs built in code).
const (
	DefaultStart    = 100
	DefaultMaxRate  = 1_000_000
	DefaultWidth    = "0.05"
	DefaultMaxSteps = 16
	DefaultAttempts = 3
	// MaxConfirmRounds is how many times the full-length repetitions may overturn a rate the
	// short trials passed before the search gives up.
	MaxConfirmRounds = 2
	// growth multiplies the rate while bracketing upwards.
	growth = 2
)

// config is a search's settings, defaulted.
type config struct {
	start, maxRate     int32
	widthPPM           int64
	maxSteps, attempts int32
	reps               int32
}

func configOf(spec *benchv1.BenchmarkRunSpec) config {
	s := spec.Load.Search
	c := config{start: DefaultStart, maxRate: DefaultMaxRate, maxSteps: DefaultMaxSteps, attempts: DefaultAttempts, reps: max(spec.Load.Repetitions, 1)}
	c.widthPPM, _ = results.ParseFraction(DefaultWidth)
	if s == nil {
		return c
	}
	if s.Start > 0 {
		c.start = s.Start
	}
	if s.MaxRate > 0 {
		c.maxRate = s.MaxRate
	}
	c.start = min(c.start, c.maxRate)
	if w, ok := results.ParseFraction(s.Width); ok && w > 0 {
		c.widthPPM = w
	}
	if s.MaxSteps > 0 {
		c.maxSteps = s.MaxSteps
	}
	if s.Attempts > 0 {
		c.attempts = s.Attempts
	}
	return c
}
