package plan

import (
	"slices"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

func TestVerifyEndpoints(t *testing.T) {
	flask := &preset.Preset{Name: "python-flask", Endpoints: []preset.Endpoint{preset.Ping, preset.DBDocuments, preset.CPUPrimes}}
	spec := &benchv1.BenchmarkRunSpec{
		Scenarios: []benchv1.Scenario{
			{Name: "hello", Workload: "ping"},
			{Name: "primes", Workload: "cpu-primes"},
			{Name: "mix", Requests: []benchv1.Request{{Path: "/api/ping", Weight: 1}}},
		},
	}
	trials := []benchv1.Trial{
		{Target: "flask", Scenario: "hello", Phase: benchv1.TrialPending},
		{Target: "flask", Scenario: "primes", Phase: benchv1.TrialSkipped},
		{Target: "flask", Scenario: "mix", Phase: benchv1.TrialPending},
		{Target: "other", Scenario: "primes", Phase: benchv1.TrialPending},
		{Target: "mixonly", Scenario: "mix", Phase: benchv1.TrialPending},
	}
	cases := []struct {
		name, target string
		db           bool
		want         []preset.Endpoint
	}{
		{"catalogue workloads of runnable trials only", "flask", false, []preset.Endpoint{preset.Ping}},
		{"custom mix only: the preset's endpoints, no DB ones without a database", "mixonly", false, []preset.Endpoint{preset.Ping, preset.CPUPrimes}},
		{"custom mix only with a database: every endpoint", "mixonly", true, flask.Endpoints},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := *spec
			if c.db {
				s.Database = &benchv1.Database{}
			}
			got := VerifyEndpoints(&s, trials, c.target, flask)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
