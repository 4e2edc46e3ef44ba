package specs

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
)

// archLabel is the well-known node label the runners' pool selects its CPU architecture by.
const archLabel = "kubernetes.io/arch"

// RunnerSizing is the k6 runners of one load point: the spec's parallelism and CPU (sizing
// Fixed), or what internal/sizing chooses from the rate (Auto). The TestRun builder, the
// measurement (runner count, CPU limit) and status.loadGeneratorSizing all read it.
func RunnerSizing(run *benchv1.BenchmarkRun, loadPoint int32) (sizing.Choice, error) {
	lg := run.Spec.LoadGenerator
	cpu := runnerCPUMillicores(lg.Resources)
	cost := costMicros(run)
	if lg.Sizing != benchv1.SizingAuto {
		c := sizing.Choice{Runners: max(lg.Parallelism, 1), RunnerMillicores: cpu}
		c.Reason = fmt.Sprintf("sizing Fixed: parallelism %d × %dm from the spec", c.Runners, cpu)
		if run.Spec.Load.Model != benchv1.LoadModelClosed {
			// What the rate is expected to cost, so an undersized generator shows before the run.
			c.BusyMillicores = (int64(loadPoint)*cost + 999) / 1000
			if c.BusyMillicores*100 > int64(c.Runners)*cpu*results.GeneratorBoundPercent {
				c.Reason += fmt.Sprintf("; expected k6 CPU %dm (%d req/s × %d µs) is above %d%% of it: expect GeneratorBound, or use sizing Auto",
					c.BusyMillicores, loadPoint, cost, results.GeneratorBoundPercent)
			}
		}
		return c, nil
	}
	if run.Spec.Load.Model == benchv1.LoadModelClosed {
		return sizing.Choice{}, fmt.Errorf("spec.loadGenerator.sizing: Auto sizes runners from the rate; the closed model has none")
	}
	c, err := sizing.Size(sizing.Input{Rate: int64(loadPoint), CostMicros: cost, MaxRunnerMillicores: cpu})
	if err != nil {
		return c, fmt.Errorf("spec.loadGenerator (load point %d): %w", loadPoint, err)
	}
	c.Reason = "sizing Auto: " + c.Reason
	return c, nil
}

// costMicros is k6's CPU per request for the runners: the spec's figure, else the project's
// for the architecture the runners' pool selects.
func costMicros(run *benchv1.BenchmarkRun) int64 {
	lg := run.Spec.LoadGenerator
	if lg.CostPerRequestMicros != nil {
		return int64(*lg.CostPerRequestMicros)
	}
	if c, ok := sizing.CostMicros[nodePool(run, lg.NodePool).NodeSelector[archLabel]]; ok {
		return c
	}
	return sizing.CostMicros["amd64"]
}

// LoadGeneratorSizing is status.loadGeneratorSizing: the runners of every load point.
func LoadGeneratorSizing(run *benchv1.BenchmarkRun) ([]benchv1.GeneratorSizing, error) {
	var out []benchv1.GeneratorSizing
	for _, p := range plan.LoadPoints(run.Spec.Load) {
		c, err := RunnerSizing(run, p)
		if err != nil {
			return nil, err
		}
		out = append(out, benchv1.GeneratorSizing{LoadPoint: p, Runners: c.Runners, RunnerCPUMillicores: c.RunnerMillicores, Reason: c.Reason})
	}
	return out, nil
}

// runnerCPUMillicores is the CPU the spec gives each runner (guaranteed's default included).
func runnerCPUMillicores(r benchv1.Resources) int64 {
	limits := guaranteed(r).Limits
	return limits.Cpu().MilliValue()
}
