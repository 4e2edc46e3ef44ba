package local_test

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Only the generator falling behind earns a second run: DroppedIterations alone or with the
// RateShortfall it causes; a flag of the target's, a shortfall without dropped iterations or
// rows that are all valid do not, and an allowed flag is no reason either.
func TestGeneratorFellBehind(t *testing.T) {
	rows := func(flags ...[]string) *benchv1.BenchmarkRun {
		run := &benchv1.BenchmarkRun{}
		for _, f := range flags {
			run.Status.Results = append(run.Status.Results, benchv1.ResultRow{Flags: f})
		}
		return run
	}
	for _, c := range []struct {
		name    string
		run     *benchv1.BenchmarkRun
		allowed []string
		want    bool
	}{
		{"dropped iterations", rows(nil, []string{"DroppedIterations"}), nil, true},
		{"dropped, with the shortfall it causes", rows([]string{"DroppedIterations", "RateShortfall"}), nil, true},
		{"a shortfall alone", rows([]string{"RateShortfall"}), nil, false},
		{"dropped beside errors", rows([]string{"DroppedIterations", "ErrorsAboveSLO"}), nil, false},
		{"one row dropped, another with errors", rows([]string{"DroppedIterations"}, []string{"ErrorsAboveSLO"}), nil, false},
		{"every row valid", rows(nil, nil), nil, false},
		{"dropped iterations the sample allows", rows([]string{"DroppedIterations"}), []string{"DroppedIterations"}, false},
	} {
		if got := generatorFellBehind(c.run, c.allowed); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
