package controllers

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A runner is judged against its own CPU limit: the kubelet's cAdvisor reports the real
// k6's CPU for the runner pod, the operator reads the busiest runner over the measured
// window and records it next to the limit. The same k6 at the same rate is GeneratorBound
// in a runner given 1 millicore and valid in one given 8 CPUs.
func TestGeneratorBoundAgainstTheRunnersLimit(t *testing.T) {
	testenv.Long(t)
	for _, c := range []struct {
		name, cpu string
		bound     bool
	}{{"gen-starved", "1m", true}, {"gen-roomy", "8", false}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			run := pingRun(c.name)
			run.Spec.Load.Duration = "4s" // several cAdvisor scrapes (1 s here) inside the window
			// Every VU ready up front: on this shared machine a stall must not drop arrivals,
			// which would make the roomy row invalid for another reason.
			run.Spec.Load.MaxVUs = ptr.To[int32](100)
			cpu := resource.MustParse(c.cpu)
			run.Spec.LoadGenerator.Resources.CPU = &cpu
			if err := env.Client.Create(ctx, run); err != nil {
				t.Fatal(err)
			}
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
			if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Trials) != 1 || len(got.Status.Results) != 1 {
				t.Fatalf("phase %s, trials %+v, results %+v", got.Status.Phase, got.Status.Trials, got.Status.Results)
			}
			m, row := got.Status.Trials[0].Result, got.Status.Results[0]
			t.Logf("runner CPU %dm of a %dm limit; row valid %v, flags %v, message %q", m.GeneratorCPUMillicores,
				m.GeneratorCPULimitMillicores, row.Valid, row.Flags, got.Status.Trials[0].Message)
			if m.GeneratorCPUMillicores <= 0 || m.GeneratorCPULimitMillicores != cpu.MilliValue() {
				t.Errorf("generator %dm of %dm: want the runner's measured CPU and its %dm limit",
					m.GeneratorCPUMillicores, m.GeneratorCPULimitMillicores, cpu.MilliValue())
			}
			if bound := slices.Contains(row.Flags, results.FlagGeneratorBound); bound != c.bound || row.Valid == c.bound {
				t.Errorf("runner at %dm of %dm: valid %v, flags %v; want GeneratorBound %v", m.GeneratorCPUMillicores,
					m.GeneratorCPULimitMillicores, row.Valid, row.Flags, c.bound)
			}
			if sz := got.Status.LoadGeneratorSizing; len(sz) != 1 || sz[0].Runners != 1 || sz[0].RunnerCPUMillicores != cpu.MilliValue() {
				t.Errorf("status.loadGeneratorSizing %+v", sz)
			}
			if err := env.Client.Delete(ctx, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}
