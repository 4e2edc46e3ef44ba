package local

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// Load points and workers the API allows but one machine cannot hold are refused, each
// naming its field; what a laptop runs passes.
func TestCheckResourcesNamesTheField(t *testing.T) {
	spec := func(load benchv1.Load, targets ...benchv1.Target) *benchv1.BenchmarkRunSpec {
		if len(targets) == 0 {
			targets = []benchv1.Target{{Name: "go", Preset: "go-nethttp", Workers: 4}}
		}
		return &benchv1.BenchmarkRunSpec{Targets: targets, Load: load}
	}
	many := make([]benchv1.Target, 32)
	for i := range many {
		many[i] = benchv1.Target{Name: "t", Preset: "go-nethttp", Workers: 256}
	}
	cases := []struct {
		name string
		spec *benchv1.BenchmarkRunSpec
		want []string // field paths; none: accepted
	}{
		{"laptop", spec(benchv1.Load{Rates: []int32{100, 20000, 400000}}), nil},
		{"closed", spec(benchv1.Load{Connections: []int32{1, 1000, LocalMaxVUs}}), nil},
		{"rate of ten million", spec(benchv1.Load{Rates: []int32{100, 10_000_000}}), []string{"spec.load.rates[1]", "1000000 k6 VUs"}},
		{"a million connections", spec(benchv1.Load{Connections: []int32{1_000_000}}), []string{"spec.load.connections[0]"}},
		{"maxVUs", spec(benchv1.Load{Rates: []int32{100}, MaxVUs: ptr.To[int32](100_000)}), []string{"spec.load.maxVUs", "spec.load.rates[0]"}},
		{"32 targets x 256 workers", spec(benchv1.Load{Rates: []int32{100}}, many...), []string{"spec.targets[*].workers", "8192 worker processes across 32 targets", "256 (16 per CPU of this machine's 16)"}},
	}
	for _, c := range cases {
		errs := CheckResources(c.spec, 16)
		if len(c.want) == 0 {
			if len(errs) > 0 {
				t.Errorf("%s: refused: %v", c.name, errs)
			}
			continue
		}
		msg := ResourceError(errs)
		for _, w := range c.want {
			if msg == nil || !strings.Contains(msg.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", c.name, msg, w)
			}
		}
	}
	p := workload.Plan{Model: workload.Open, Rate: 1_000_000, PreAllocatedVUs: 100_000}
	if err := CheckPlanVUs("search-step-9", p); err == nil || !strings.Contains(err.Error(), "search-step-9") || !strings.Contains(err.Error(), "100000 k6 VUs") {
		t.Errorf("CheckPlanVUs: %v", err)
	}
	if err := CheckPlanVUs("ok", workload.Plan{Model: workload.Closed, VUs: 64}); err != nil {
		t.Errorf("CheckPlanVUs of 64 VUs: %v", err)
	}
}

// PrepareRun refuses an exhausting spec before anything starts, after --scale (which
// multiplies the load points), and --allow-unsafe lets it through.
func TestPrepareRunRefusesExhaustionUnlessAllowed(t *testing.T) {
	mk := func(rate int32) *benchv1.BenchmarkRun {
		run := &benchv1.BenchmarkRun{}
		run.Name = "huge"
		run.Spec = benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{rate}, Repetitions: 1, Duration: "1s"},
		}
		return run
	}
	if _, _, err := PrepareRun(mk(10_000_000), testenv.Root(), 1, false); err == nil || !strings.Contains(err.Error(), "spec.load.rates[0]") || !strings.Contains(err.Error(), "--allow-unsafe") {
		t.Errorf("rate of ten million: %v", err)
	}
	if _, _, err := PrepareRun(mk(1000), testenv.Root(), 1000, false); err == nil || !strings.Contains(err.Error(), "spec.load.rates[0]") {
		t.Errorf("rate 1000 scaled by 1000: %v", err)
	}
	if _, _, err := PrepareRun(mk(10_000_000), testenv.Root(), 1, true); err != nil {
		t.Errorf("with allowUnsafe: %v", err)
	}
	if _, _, err := PrepareRun(mk(1000), testenv.Root(), 1, false); err != nil {
		t.Errorf("rate 1000: %v", err)
	}
}
