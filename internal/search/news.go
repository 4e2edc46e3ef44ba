package search

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// News describes what changed between two readings of status.search, a line per search
// that moved: the steps judged since, what runs next, and the answer once there is one.
// The operator records the lines as events, the local mode prints them.
func News(before, after []benchv1.CapacitySearch) []string {
	var out []string
	for _, a := range after {
		var b *benchv1.CapacitySearch
		for i := range before {
			if before[i].Target == a.Target && before[i].Scenario == a.Scenario {
				b = &before[i]
			}
		}
		judgedBefore := map[string]bool{}
		if b != nil {
			for _, s := range b.Steps {
				judgedBefore[s.Trial] = s.Outcome != benchv1.StepPending
			}
		}
		var parts []string
		for _, s := range a.Steps {
			if s.Outcome == benchv1.StepPending || judgedBefore[s.Trial] {
				continue
			}
			p := fmt.Sprintf("%s %d/s %s", strings.ToLower(string(s.Kind)), s.RPS, s.Outcome)
			if s.Reason != "" {
				p += " (" + s.Reason + ")"
			}
			parts = append(parts, p)
		}
		finished := a.Phase == benchv1.SearchDone || a.Phase == benchv1.SearchFailed
		if finished && (b == nil || b.Phase != a.Phase) {
			parts = append(parts, fmt.Sprintf("%s: %s", strings.ToLower(string(a.Phase)), a.Message))
		} else if len(parts) > 0 {
			if next := nextPending(a); next != nil {
				parts = append(parts, fmt.Sprintf("next: %s %d/s", strings.ToLower(string(next.Kind)), next.RPS))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("search %s/%s: %s", a.Target, a.Scenario, strings.Join(parts, "; ")))
		}
	}
	return out
}

func nextPending(s benchv1.CapacitySearch) *benchv1.SearchStep {
	for i := range s.Steps {
		if s.Steps[i].Outcome == benchv1.StepPending {
			return &s.Steps[i]
		}
	}
	return nil
}
