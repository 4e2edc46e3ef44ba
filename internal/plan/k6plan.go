package plan

import (
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// K6Plan is the k6 plan of one trial: the scenario's requests at the trial's load point,
// with the spec's windows. The local mode and the operator both call it, with their own
// base URL and tags, so both offer exactly the same load.
func K6Plan(spec *benchv1.BenchmarkRunSpec, t Trial, baseURL string, tags workload.Tags) (workload.Plan, error) {
	reqs, err := Requests(spec, t.Scenario)
	if err != nil {
		return workload.Plan{}, err
	}
	l := spec.Load
	// The plan keeps its own lowercase model names (loadgen/bench.js reads them); the API's
	// Open and Closed map onto them here.
	load := workload.Load{Model: workload.Open}
	if l.Model == benchv1.LoadModelClosed {
		load = workload.Load{Model: workload.Closed, VUs: int(t.LoadPoint)}
	} else {
		load.Rate = int(t.LoadPoint)
		if l.MaxVUs != nil {
			// The whole budget up front: k6 drops arrivals while it initialises a VU, and a
			// busy machine stalls for longer than the default pool (100 ms of arrivals) covers.
			load.MaxVUs, load.PreAllocatedVUs = int(*l.MaxVUs), int(*l.MaxVUs)
		}
	}
	warmup, measure := Windows(spec, t)
	return workload.Build(workload.Spec{BaseURL: baseURL, Requests: reqs, Load: load,
		KeepAlive: l.KeepAlive == nil || *l.KeepAlive,
		Warmup:    warmup, Measure: measure, RequestTimeout: l.RequestTimeout.Std(), Tags: tags})
}

// InFlight is the most requests the trial's k6 can have in flight at once: one per virtual
// user (an iteration's requests go one after another), the load point's VUs in the closed
// model, maxVUs (or the size k6Plan gives it) in the open one.
func InFlight(spec *benchv1.BenchmarkRunSpec, t Trial) int64 {
	if spec.Load.Model == benchv1.LoadModelClosed {
		return int64(t.LoadPoint)
	}
	if spec.Load.MaxVUs != nil {
		return int64(*spec.Load.MaxVUs)
	}
	_, mx := workload.DefaultVUs(int(t.LoadPoint))
	return int64(mx)
}

// FromStatus is the plan trial a status entry records.
func FromStatus(t *benchv1.Trial) Trial {
	return Trial{Index: t.Index, Name: t.Name, Target: t.Target, Scenario: t.Scenario, LoadPoint: t.LoadPoint, Repetition: t.Repetition,
		Calibration: t.Calibration, SearchStep: t.SearchStep, Short: t.Short}
}

// Windows are a trial's warmup and measured window: spec.load's, or the search's step
// windows for a short search trial.
func Windows(spec *benchv1.BenchmarkRunSpec, t Trial) (warmup, measure time.Duration) {
	l := spec.Load
	if t.Short && l.Search != nil {
		return l.Search.StepWarmup.Std(), l.Search.StepDuration.Std()
	}
	return l.Warmup.Std(), l.Duration.Std()
}
