package plan

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Build (the operator's accept phase and the local mode) refuses CPU and memory that no
// container can have, naming the field.
func TestBuildRefusesImpossibleResources(t *testing.T) {
	spec := func(r benchv1.Resources, lg benchv1.Resources) *benchv1.BenchmarkRunSpec {
		return &benchv1.BenchmarkRunSpec{
			Targets:       []benchv1.Target{{Name: "go", Preset: "go-nethttp", Resources: r}},
			LoadGenerator: benchv1.LoadGenerator{Resources: lg},
			Scenarios:     []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:          benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100}, Repetitions: 1},
		}
	}
	q := func(s string) *resource.Quantity { return ptr.To(resource.MustParse(s)) }
	if _, err := Build(spec(benchv1.Resources{CPU: q("2"), Memory: q("1Gi")}, benchv1.Resources{CPU: q("500m")}), map[string][]string{"go-nethttp": {"ping"}}); err != nil {
		t.Fatalf("ordinary resources: %v", err)
	}
	for _, c := range []struct {
		target, lg benchv1.Resources
		says       string
	}{
		{benchv1.Resources{CPU: q("-1")}, benchv1.Resources{}, "spec.targets[0].resources.cpu"},
		{benchv1.Resources{CPU: q("0")}, benchv1.Resources{}, "spec.targets[0].resources.cpu"},
		{benchv1.Resources{CPU: q("1Ei")}, benchv1.Resources{}, "spec.targets[0].resources.cpu"},
		{benchv1.Resources{Memory: q("-5Gi")}, benchv1.Resources{}, "spec.targets[0].resources.memory"},
		{benchv1.Resources{}, benchv1.Resources{Memory: q("1Ei")}, "spec.loadGenerator.resources.memory"},
	} {
		if _, err := Build(spec(c.target, c.lg), nil); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v / %+v: %v, want a refusal naming %s", c.target, c.lg, err, c.says)
		}
	}
}
