package sizing

import (
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/results"
)

func TestSizeKeepsEveryRunnerUnderTheBoundShare(t *testing.T) {
	cases := []struct {
		name        string
		in          Input
		runners     int32
		runnerMilli int64
		busy        int64
	}{
		// 50,000/s × 200 µs = 10 cores busy; at most 25% of each runner: 40,000m over
		// runners of at most 3,500m (a 4-vCPU node): 12 runners of 3,334m, rounded to 3,500m.
		{"seed-004", Input{Rate: 50000, CostMicros: 200, MaxRunnerMillicores: 3500}, 12, 3500, 10000},
		// 1,000/s × 200 µs = 200m busy: one runner, never below one CPU.
		{"1k", Input{Rate: 1000, CostMicros: 200, MaxRunnerMillicores: 3500}, 1, 1000, 200},
		// A pool of small nodes: runners of 500m each, below the one-CPU floor.
		{"small nodes", Input{Rate: 2000, CostMicros: 200, MaxRunnerMillicores: 500}, 4, 500, 400},
		// 9,200m over runners of at most 3,920m: 3 of 3,067m, rounded up to 3,250m.
		{"odd limit", Input{Rate: 10000, CostMicros: 230, MaxRunnerMillicores: 3920}, 3, 3250, 2300},
	}
	for _, c := range cases {
		got, err := Size(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Runners != c.runners || got.RunnerMillicores != c.runnerMilli || got.BusyMillicores != c.busy {
			t.Errorf("%s: %d runners × %dm (%dm busy), want %d × %dm (%dm)", c.name, got.Runners, got.RunnerMillicores,
				got.BusyMillicores, c.runners, c.runnerMilli, c.busy)
		}
		// The rule itself: the busy CPU spread evenly stays at or under the share of each runner.
		if got.BusyMillicores*100 > int64(got.Runners)*got.RunnerMillicores*results.GeneratorBoundPercent {
			t.Errorf("%s: %dm busy over %d × %dm passes %d%%", c.name, got.BusyMillicores, got.Runners, got.RunnerMillicores, results.GeneratorBoundPercent)
		}
		if !strings.Contains(got.Reason, "µs") || !strings.Contains(got.Reason, "runner") {
			t.Errorf("%s: reason %q does not show the arithmetic", c.name, got.Reason)
		}
	}
}

func TestSizeRefusesWhatItCannotSize(t *testing.T) {
	for _, in := range []Input{
		{Rate: 0, CostMicros: 200, MaxRunnerMillicores: 1000},
		{Rate: 100, CostMicros: 0, MaxRunnerMillicores: 1000},
		{Rate: 100, CostMicros: 200, MaxRunnerMillicores: 0},
	} {
		if _, err := Size(in); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("%+v: error %v", in, err)
		}
	}
	// 10M/s at 200 µs needs 2,000 cores busy: beyond 64 runners of 4 CPUs.
	if _, err := Size(Input{Rate: 10_000_000, CostMicros: 200, MaxRunnerMillicores: 4000}); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("too many runners: error %v", err)
	}
}
