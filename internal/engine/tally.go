package engine

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/search"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// Tally recomputes what status derives from the trials: the progress, the result rows
// (with the wire's uncertainty and the placement's flags; a baseline's verdicts carried
// over), the headline, the searches and the SLO verdict. Both modes call it after every
// trial, the operator on every pass: it is a function of the trials alone.
func Tally(run *benchv1.BenchmarkRun, notify Notify) {
	st := &run.Status
	st.Progress = results.Progress(st.Trials)
	old := st.Results
	st.Results = results.Aggregate(&run.Spec, st.Trials)
	compare.CarryOver(old, st.Results)
	for i := range st.Results {
		if w := st.Results[i].Wire; w != nil {
			w.UncertaintyMicros = wire.UncertaintyMicros
		}
	}
	results.ApplyPlacement(st.Results, st.Placement)
	st.Headline = results.Headline(st.Results)
	st.Summary = results.Summary(st.Headline)
	searchStatus(run, notify)
	sloVerdict(run)
}

// AdvanceSearch appends a search's next step once the previous one is judged, and says
// what the search learnt.
func AdvanceSearch(run *benchv1.BenchmarkRun, notify Notify) {
	if run.Spec.Load.Search == nil {
		return
	}
	search.Advance(&run.Spec, &run.Status)
	searchStatus(run, notify)
}

// searchStatus recomputes status.search and status.capacity and says what the searches
// learnt since they were last recomputed: each step judged, what runs next, the answer.
func searchStatus(run *benchv1.BenchmarkRun, notify Notify) {
	if run.Spec.Load.Search == nil {
		return
	}
	before := run.Status.Search
	run.Status.Search = search.Status(&run.Spec, run.Status.Trials)
	run.Status.Capacity = search.Summary(run.Status.Search)
	for _, line := range search.News(before, run.Status.Search) {
		notify.say(false, benchv1.ReasonSearchStep, "Search", line)
	}
}

// sloVerdict sets SLOMet from the rows spec.slo judges (a search's measurements on the way
// to its answer are expected to miss): True when every one met it; False names each row
// that missed it, or whose latency was not measured.
func sloVerdict(run *benchv1.BenchmarkRun) {
	if run.Spec.SLO == nil {
		return
	}
	var judged int
	var missed, unmeasured []string
	for _, row := range run.Status.Results {
		if !search.CountsForSLO(&run.Spec, run.Status.Search, row) {
			continue
		}
		judged++
		name := fmt.Sprintf("%s/%s@%d", row.Target, row.Scenario, row.LoadPoint)
		switch row.SLO {
		case benchv1.VerdictMet:
		case benchv1.VerdictMissed:
			missed = append(missed, name)
		default:
			unmeasured = append(unmeasured, name)
		}
	}
	if judged == 0 {
		return
	}
	if len(missed)+len(unmeasured) == 0 {
		SetCondition(run, benchv1.ConditionSLOMet, metav1.ConditionTrue, benchv1.ReasonSLOMet, "every result row meets the SLO")
		return
	}
	var parts []string
	if len(missed) > 0 {
		parts = append(parts, "missed by "+strings.Join(missed, ", "))
	}
	if len(unmeasured) > 0 {
		parts = append(parts, "not measured: "+strings.Join(unmeasured, ", "))
	}
	SetCondition(run, benchv1.ConditionSLOMet, metav1.ConditionFalse, benchv1.ReasonSLOMissed, strings.Join(parts, "; "))
}
