package engine

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A run is Failed for 100% errors only when no measured trial served a request.
func TestNothingServed(t *testing.T) {
	ok := func(req, errs int64) benchv1.Trial {
		return benchv1.Trial{Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: req, Errors: errs}}
	}
	failed := benchv1.Trial{Phase: benchv1.TrialFailed}
	cases := []struct {
		name   string
		trials []benchv1.Trial
		want   bool
	}{
		{"all errors", []benchv1.Trial{ok(100, 100), ok(50, 50)}, true},
		{"one served request", []benchv1.Trial{ok(100, 100), ok(50, 49)}, false},
		{"nothing measured", []benchv1.Trial{failed}, false},
		{"no requests at all", []benchv1.Trial{ok(0, 0), failed}, true},
	}
	for _, c := range cases {
		if got := nothingServed(c.trials) != ""; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

