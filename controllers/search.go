package controllers

import (
	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/search"
)

// advanceSearch plans the next trials of the capacity searches (internal/search) from the
// trials finished so far; the plan is a function of the recorded trials alone, so a
// restarted operator plans the same steps.
func (r *BenchmarkRunReconciler) advanceSearch(s *scope) {
	run := s.run
	if run.Spec.Load.Search == nil {
		return
	}
	search.Advance(&run.Spec, &run.Status)
	r.searchStatus(s)
}

// searchStatus recomputes status.search and status.capacity and records what the searches
// learnt since the last write as events: each step judged, what runs next, the answer.
func (r *BenchmarkRunReconciler) searchStatus(s *scope) {
	run := s.run
	if run.Spec.Load.Search == nil {
		return
	}
	before := run.Status.Search
	run.Status.Search = search.Status(&run.Spec, run.Status.Trials)
	run.Status.Capacity = search.Summary(run.Status.Search)
	for _, line := range search.News(before, run.Status.Search) {
		r.Recorder.Eventf(run, nil, "Normal", ReasonSearchStep, "Search", "%s", line)
	}
}

// sloRows are the rows the SLOMet condition judges: a search's full-length measurements on
// the way to its answer are expected to miss.
func sloRows(run *benchv1.BenchmarkRun) []benchv1.ResultRow {
	var out []benchv1.ResultRow
	for _, row := range run.Status.Results {
		if search.CountsForSLO(&run.Spec, run.Status.Search, row) {
			out = append(out, row)
		}
	}
	return out
}
