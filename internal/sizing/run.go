package sizing

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// archLabel is the well-known node label the runners' pool selects its CPU architecture by.
const archLabel = "kubernetes.io/arch"

// Runners is the k6 runners of one load point of a run: the spec's parallelism and CPU
// (sizing Fixed), or what Size chooses from the rate (Auto). It lives here, not with the
// operator's object builders, because both modes read it: the TestRun builder, the
// measurement (runner count, CPU limit), status.loadGeneratorSizing and the local mode's
// k6 cgroup.
func Runners(run *benchv1.BenchmarkRun, loadPoint int32) (Choice, error) {
	lg := run.Spec.LoadGenerator
	cpu := RunnerMillicores(lg)
	cost := costMicros(run)
	if lg.Sizing != benchv1.SizingAuto {
		c := Choice{Runners: max(lg.Parallelism, 1), RunnerMillicores: cpu}
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
		return Choice{}, fmt.Errorf("spec.loadGenerator.sizing: Auto sizes runners from the rate; the closed model has none")
	}
	c, err := Size(Input{Rate: int64(loadPoint), CostMicros: cost, MaxRunnerMillicores: cpu})
	if err != nil {
		return c, fmt.Errorf("spec.loadGenerator (load point %d): %w", loadPoint, err)
	}
	c.Reason = "sizing Auto: " + c.Reason
	return c, nil
}

// RunnerMillicores is the CPU the spec gives each runner (the API's default when it names
// none): a Fixed runner's CPU, the most an Auto one may have.
func RunnerMillicores(lg benchv1.LoadGenerator) int64 {
	cpu := lg.Resources.CPUOrDefault()
	return cpu.MilliValue()
}

// costMicros is k6's CPU per request for the runners: the spec's figure, else the project's
// for the architecture the runners' pool selects.
func costMicros(run *benchv1.BenchmarkRun) int64 {
	lg := run.Spec.LoadGenerator
	if lg.CostPerRequestMicros != nil {
		return int64(*lg.CostPerRequestMicros)
	}
	if c, ok := CostMicros[run.Spec.Pool(lg.NodePool).NodeSelector[archLabel]]; ok {
		return c
	}
	return CostMicros["amd64"]
}

// LoadGenerator is status.loadGeneratorSizing: the runners of every load point.
func LoadGenerator(run *benchv1.BenchmarkRun) ([]benchv1.GeneratorSizing, error) {
	var out []benchv1.GeneratorSizing
	for _, p := range plan.LoadPoints(run.Spec.Load) {
		c, err := Runners(run, p)
		if err != nil {
			return nil, err
		}
		out = append(out, benchv1.GeneratorSizing{LoadPoint: p, Runners: c.Runners, RunnerCPUMillicores: c.RunnerMillicores, Reason: c.Reason})
	}
	return out, nil
}
