package plan

import (
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// VerifyEndpoints are the contract endpoints a target must pass before it is timed: those
// its runnable (not skipped) trials request. A target whose trials run only custom mixes is
// checked on every endpoint its preset lists, leaving out the database ones when the run has
// no database. p is nil for a bring-your-own image. The operator and the local mode both
// call this, so the two cannot check different things.
func VerifyEndpoints(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial, target string, p *preset.Preset) []preset.Endpoint {
	var out []preset.Endpoint
	add := func(e preset.Endpoint) {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	customOnly := true
	for _, tr := range trials {
		if tr.Target != target || tr.Phase == benchv1.TrialSkipped {
			continue
		}
		for _, s := range spec.Scenarios {
			if s.Name != tr.Scenario || s.Workload == "" {
				continue
			}
			w, err := workload.Lookup(s.Workload)
			if err != nil {
				continue // refused by the schema's enum
			}
			customOnly = false
			for _, e := range w.Endpoints {
				add(preset.Endpoint(e))
			}
		}
	}
	if customOnly && p != nil {
		for _, e := range p.Endpoints {
			if !e.IsDB() || spec.Database != nil {
				add(e)
			}
		}
	}
	return out
}
