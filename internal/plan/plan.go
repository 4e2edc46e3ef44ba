// Package plan turns a BenchmarkRun spec into the ordered list of trials both the operator
// and the local mode execute. It knows nothing of Kubernetes or processes.
package plan

import (
	"fmt"
	"slices"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// Trial is one target measured on one scenario at one load point, once.
type Trial struct {
	Index      int32
	Name       string
	Target     string
	Scenario   string
	LoadPoint  int32
	Repetition int32 // from 1
	// Skip, when set, is why this trial is not run (the target lacks an endpoint).
	Skip string
	// Calibration: a generator-floor trial against the null responder (WithCalibration).
	Calibration bool
	// SearchStep and Short: a capacity search's step (internal/search), from 1; Short ones
	// use the search's step windows.
	SearchStep int32
	Short      bool
}

// Build orders the trials: repetition-major, then scenario, then load point, then target, so
// one target is under load at a time and repetitions interleave across targets (ABCABC):
// drift over the run hits every target alike. presets maps a preset to the contract
// endpoints it implements; bring-your-own images are assumed to implement all.
func Build(spec *benchv1.BenchmarkRunSpec, presets map[string][]string) ([]Trial, error) {
	if errs := CheckResources(spec); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	points := LoadPoints(spec.Load)
	if len(points) == 0 && spec.Load.Search == nil {
		return nil, fmt.Errorf("spec.load: no load points for model %q", spec.Load.Model)
	}
	needs := map[string][]string{}
	for _, s := range spec.Scenarios {
		if s.Workload == "" {
			continue // a custom mix: its paths are the user's promise
		}
		w, err := workload.Lookup(s.Workload)
		if err != nil {
			return nil, fmt.Errorf("spec.scenarios[%s].workload: %w", s.Name, err)
		}
		needs[s.Name] = w.Endpoints
	}
	reps := max(spec.Load.Repetitions, 1)
	var trials []Trial
	for rep := int32(1); rep <= reps; rep++ {
		for _, s := range spec.Scenarios {
			for _, p := range points {
				for _, t := range spec.Targets {
					trial := Trial{
						Index: int32(len(trials)), Target: t.Name, Scenario: s.Name, LoadPoint: p, Repetition: rep,
						Name: TrialName(t.Name, s.Name, p, rep),
					}
					skip, err := skipReason(t, s, needs, presets)
					if err != nil {
						return nil, err
					}
					trial.Skip = skip
					trials = append(trials, trial)
				}
			}
		}
	}
	if spec.Load.Search != nil {
		first, err := firstSearchSteps(spec, trials, needs, presets)
		if err != nil {
			return nil, err
		}
		trials = append(trials, first...)
	}
	return trials, nil
}

// firstSearchSteps are the first step of every capacity search, one per target and
// scenario, after the fixed load points' trials; internal/search plans the rest from their
// outcomes. A target lacking the scenario's endpoints gets its step skipped, as above.
func firstSearchSteps(spec *benchv1.BenchmarkRunSpec, before []Trial, needs map[string][]string, presets map[string][]string) ([]Trial, error) {
	var out []Trial
	for _, s := range spec.Scenarios {
		for _, t := range spec.Targets {
			trial := Trial{Index: int32(len(before) + len(out)), Target: t.Name, Scenario: s.Name, LoadPoint: max(spec.Load.Search.Start, 1),
				Repetition: 1, SearchStep: 1, Short: true, Name: SearchTrialName(t.Name, s.Name, 1)}
			skip, err := skipReason(t, s, needs, presets)
			if err != nil {
				return nil, err
			}
			trial.Skip = skip
			out = append(out, trial)
		}
	}
	return out, nil
}

// skipReason is why a target cannot run a scenario (its preset lacks an endpoint the
// workload needs), or ""; bring-your-own images are assumed to implement all.
func skipReason(t benchv1.Target, s benchv1.Scenario, needs, presets map[string][]string) (string, error) {
	if t.Preset == "" {
		return "", nil
	}
	have, ok := presets[t.Preset]
	if !ok {
		return "", fmt.Errorf("spec.targets[%s].preset: no target.yaml for preset %q", t.Name, t.Preset)
	}
	for _, e := range needs[s.Name] {
		if !slices.Contains(have, e) {
			return fmt.Sprintf("%s does not implement %s, which workload %s needs", t.Preset, e, s.Workload), nil
		}
	}
	return "", nil
}

// SearchTrialName names a capacity search's trial: target.scenario.sN, N the step from 1.
// Three parts, where TrialName has four: the two never meet.
func SearchTrialName(target, scenario string, step int32) string {
	return fmt.Sprintf("%s.%s.s%d", target, scenario, step)
}

// TrialName names a trial: target.scenario.point.rN. Target and scenario names are DNS
// labels, which hold no dot, so the name is injective: joined with "-", targets go and
// go-fast with scenarios fast-ping and ping would both give go-fast-ping-100-r1.
func TrialName(target, scenario string, point, rep int32) string {
	return fmt.Sprintf("%s.%s.%d.r%d", target, scenario, point, rep)
}

// LoadPoints are the rates (open model) or connections (closed model) of a load.
func LoadPoints(l benchv1.Load) []int32 {
	if l.Model == benchv1.LoadModelClosed {
		return l.Connections
	}
	return l.Rates
}

// Requests is the request mix of a scenario: its catalogue entry or its custom requests.
func Requests(spec *benchv1.BenchmarkRunSpec, scenario string) ([]workload.Request, error) {
	for _, s := range spec.Scenarios {
		if s.Name != scenario {
			continue
		}
		if s.Workload != "" {
			w, err := workload.Lookup(s.Workload)
			if err != nil {
				return nil, err
			}
			return w.Requests, nil
		}
		reqs := make([]workload.Request, 0, len(s.Requests))
		for _, r := range s.Requests {
			reqs = append(reqs, workload.Request{
				Method: r.Method, Path: r.Path, Body: r.Body, Weight: int(r.Weight), ExpectStatus: int(r.ExpectStatus),
			})
		}
		return reqs, nil
	}
	return nil, fmt.Errorf("no scenario named %q in spec.scenarios", scenario)
}

// Status is the trial's initial entry in status.trials.
func (t Trial) Status() benchv1.Trial {
	st := benchv1.Trial{
		Name: t.Name, Index: t.Index, Target: t.Target, Scenario: t.Scenario,
		LoadPoint: t.LoadPoint, Repetition: t.Repetition, Phase: benchv1.TrialPending, Calibration: t.Calibration,
		SearchStep: t.SearchStep, Short: t.Short,
	}
	if t.Skip != "" {
		st.Phase, st.Message = benchv1.TrialSkipped, t.Skip
	}
	return st
}
