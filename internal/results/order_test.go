package results

import (
	"fmt"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Rows follow the spec's targets within each scenario and load point, whatever order the
// shuffled rounds ran them in.
func TestRowsInSpecOrder(t *testing.T) {
	spec := &benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Scenarios: []benchv1.Scenario{{Name: "ping"}}, Load: benchv1.Load{Rates: []int32{100, 200}}}
	var trials []benchv1.Trial
	for _, k := range []RowKey{{"c", "ping", 100}, {"a", "ping", 100}, {"b", "ping", 100}, {"b", "ping", 200}, {"c", "ping", 200}, {"a", "ping", 200}} {
		trials = append(trials, benchv1.Trial{Target: k.Target, Scenario: k.Scenario, LoadPoint: k.Point, Repetition: 1,
			Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 10, AchievedMilliRPS: 1000}})
	}
	var got []string
	for _, r := range Aggregate(spec, trials) {
		got = append(got, fmt.Sprintf("%s@%d", r.Target, r.LoadPoint/100))
	}
	if want := "[a@1 b@1 c@1 a@2 b@2 c@2]"; fmt.Sprint(got) != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}
