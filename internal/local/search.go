package local

import (
	"github.com/gauntlet-bench/gauntlet/internal/search"
)

// advanceSearch plans the next trials of the capacity searches (internal/search) once a
// trial has finished, and prints what the searches learnt.
func (r *runner) advanceSearch() {
	spec, st := &r.run.Spec, &r.run.Status
	if spec.Load.Search == nil {
		return
	}
	before := st.Search
	search.Advance(spec, st)
	st.Search = search.Status(spec, st.Trials)
	st.Capacity = search.Summary(st.Search)
	for _, line := range search.News(before, st.Search) {
		r.progress.note("%s", line)
	}
}
