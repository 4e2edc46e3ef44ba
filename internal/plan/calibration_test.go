package plan

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestWithCalibration(t *testing.T) {
	spec := &benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "a"}, {Name: "b"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100, 200}, Repetitions: 2},
	}
	trials, err := Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := WithCalibration(trials)
	var names []string
	for i, tr := range got {
		names = append(names, tr.Name)
		if tr.Index != int32(i) {
			t.Errorf("%s: index %d at position %d", tr.Name, tr.Index, i)
		}
	}
	want := []string{"floor-ping-100", "a.ping.100.r1", "b.ping.100.r1", "floor-ping-200", "a.ping.200.r1", "b.ping.200.r1",
		"a.ping.100.r2", "b.ping.100.r2", "a.ping.200.r2", "b.ping.200.r2"}
	if len(names) != len(want) {
		t.Fatalf("got %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("got %v, want %v", names, want)
		}
	}
	st := got[3].Status()
	if !st.Calibration || st.Target != NullResponder || st.LoadPoint != 200 || !FromStatus(&st).Calibration {
		t.Errorf("calibration status %+v", st)
	}
}
