package engine

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// conclusive sets Conclusive from the result rows: False when rows were measured and none
// is valid, or when the headline is inconclusive (an invalid row could beat the best
// valid one); the message counts the rows and each flag that made a row invalid, so a
// pipeline's log says what to fix. A run with no row at all says nothing here: its
// failure does.
func conclusive(run *benchv1.BenchmarkRun) {
	rows := run.Status.Results
	if len(rows) == 0 {
		return
	}
	valid, flags := 0, map[string]int{}
	for _, r := range rows {
		if r.Valid {
			valid++
			continue
		}
		for _, f := range r.Flags {
			flags[f]++
		}
	}
	counts := fmt.Sprintf("%d of %d rows valid", valid, len(rows))
	if why := flagCounts(flags); why != "" {
		counts += "; invalid rows' flags: " + why
	}
	switch {
	case valid == 0:
		SetCondition(run, benchv1.ConditionConclusive, metav1.ConditionFalse, benchv1.ReasonNoValidResult, counts)
	case strings.HasPrefix(run.Status.Headline, results.InconclusivePrefix):
		SetCondition(run, benchv1.ConditionConclusive, metav1.ConditionFalse, benchv1.ReasonHeadlineInconclusive,
			run.Status.Headline+"; "+counts)
	default:
		SetCondition(run, benchv1.ConditionConclusive, metav1.ConditionTrue, benchv1.ReasonValidResults, counts)
	}
}

// flagCounts is "GeneratorBound 30, MostlyFailed 6", the most frequent first.
func flagCounts(flags map[string]int) string {
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if flags[keys[i]] != flags[keys[j]] {
			return flags[keys[i]] > flags[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, flags[k])
	}
	return strings.Join(parts, ", ")
}
