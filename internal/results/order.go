package results

import (
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// specOrder puts rows in the spec's order of targets within each scenario and load point:
// the trials run in an order shuffled per round (plan.Shuffle), and a table that moved its
// rows with the seed would read differently for every run of one document. Scenarios and
// load points keep the order their first trials ran in (the plan's, searches' rates last).
func specOrder(spec *benchv1.BenchmarkRunSpec, order []RowKey) []RowKey {
	target := map[string]int{}
	for i, t := range spec.Targets {
		target[t.Name] = i
	}
	type point struct {
		scenario string
		load     int32
	}
	first := map[point]int{}
	for i, k := range order {
		if _, ok := first[point{k.Scenario, k.Point}]; !ok {
			first[point{k.Scenario, k.Point}] = i
		}
	}
	out := slices.Clone(order)
	slices.SortStableFunc(out, func(a, b RowKey) int {
		if d := first[point{a.Scenario, a.Point}] - first[point{b.Scenario, b.Point}]; d != 0 {
			return d
		}
		return target[a.Target] - target[b.Target]
	})
	return out
}
