package sizing

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestRunners(t *testing.T) {
	auto := func(cost *int32, cpu string, pool map[string]string) *benchv1.BenchmarkRun {
		r := fixtureRun()
		r.Spec.LoadGenerator.Sizing, r.Spec.LoadGenerator.CostPerRequestMicros = benchv1.SizingAuto, cost
		q := resource.MustParse(cpu)
		r.Spec.LoadGenerator.Resources.CPU = &q
		r.Spec.NodePools[1].NodeSelector = pool
		return r
	}
	amd := CostMicros["amd64"]
	cases := []struct {
		name      string
		run       *benchv1.BenchmarkRun
		point     int32
		runners   int32
		milli     int64
		reasonHas []string
	}{
		{"fixed, as the spec says", fixtureRun(), 1000, 2, 4000, []string{"sizing Fixed: parallelism 2 × 4000m"}},
		{"fixed, warned when the rate will not fit", fixtureRun(), 50000, 2, 4000,
			[]string{"expect GeneratorBound", fmt.Sprintf("50000 req/s × %d µs", amd)}},
		{"auto, the spec's cost", auto(ptr.To[int32](200), "3500m", nil), 50000, 12, 3500,
			[]string{"sizing Auto", "50000 req/s × 200 µs"}},
		{"auto, the project's cost for the pool's architecture", auto(nil, "3500m", map[string]string{"kubernetes.io/arch": "arm64"}), 1000, 1, 1000,
			[]string{fmt.Sprintf("1000 req/s × %d µs", CostMicros["arm64"])}},
	}
	for _, c := range cases {
		got, err := Runners(c.run, c.point)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Runners != c.runners || got.RunnerMillicores != c.milli {
			t.Errorf("%s: %d × %dm, want %d × %dm", c.name, got.Runners, got.RunnerMillicores, c.runners, c.milli)
		}
		for _, s := range c.reasonHas {
			if !strings.Contains(got.Reason, s) {
				t.Errorf("%s: reason %q lacks %q", c.name, got.Reason, s)
			}
		}
	}
	closed := auto(nil, "4", nil)
	closed.Spec.Load = benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{64}}
	if _, err := LoadGenerator(closed); err == nil || !strings.Contains(err.Error(), "spec.loadGenerator.sizing") {
		t.Errorf("auto with the closed model: error %v", err)
	}
	tooMuch := auto(ptr.To[int32](200), "1", nil)
	tooMuch.Spec.Load.Rates = []int32{1000, 10_000_000}
	if _, err := LoadGenerator(tooMuch); err == nil || !strings.Contains(err.Error(), "load point 10000000") {
		t.Errorf("a load point beyond 64 runners: error %v", err)
	}
	two := auto(ptr.To[int32](200), "3500m", nil)
	two.Spec.Load.Rates = []int32{1000, 50000}
	got, err := LoadGenerator(two)
	want := []benchv1.GeneratorSizing{{LoadPoint: 1000, Runners: 1, RunnerCPUMillicores: 1000}, {LoadPoint: 50000, Runners: 12, RunnerCPUMillicores: 3500}}
	for i := range got {
		got[i].Reason = ""
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("status sizing %+v (%v), want %+v", got, err, want)
	}
}

// fixtureRun is what the sizing reads of a run: two pools (the runners' second, with no
// architecture), two Fixed runners of 4 CPUs, one open-model rate.
func fixtureRun() *benchv1.BenchmarkRun {
	cpu := resource.MustParse("4")
	return &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{
		NodePools: []benchv1.NodePool{
			{Name: "amd", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}},
			{Name: "loadgen", NodeSelector: map[string]string{"pool": "loadgen"}},
		},
		LoadGenerator: benchv1.LoadGenerator{NodePool: "loadgen", Parallelism: 2, Resources: benchv1.Resources{CPU: &cpu}},
		Load:          benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{1000}},
	}}
}
