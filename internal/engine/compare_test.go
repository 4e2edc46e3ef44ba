package engine

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

func pairRun(name string, p50s map[string][]int64) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec = benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "a"}, {Name: "b", BaselineTarget: "a"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{500}, Repetitions: 5},
	}
	for _, target := range []string{"a", "b"} {
		for i, v := range p50s[target] {
			run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Target: target, Scenario: "ping", LoadPoint: 500,
				Repetition: int32(i + 1), Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 1000,
					AchievedMilliRPS: 500_000, P50Micros: v, P90Micros: v, P95Micros: v, P99Micros: v, P999Micros: v}})
		}
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	return run
}

// A Slower pair stands when the baseline run cannot be read; a baseline run on other
// machines makes a Slower row EnvironmentChanged, said as a warning.
func TestCompareAcrossEnvironments(t *testing.T) {
	var said []string
	notify := func(warning bool, reason, _, msg string) { said = append(said, reason) }
	run := pairRun("r", map[string][]int64{"a": {100, 101, 102, 103, 104}, "b": {120, 121, 122, 123, 124}})
	run.Spec.Baseline = &benchv1.Baseline{Run: "gone"}
	Compare(run, nil, "", "spec.baseline.run: no BenchmarkRun \"gone\"", notify)
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "the baseline run: spec.baseline.run: no BenchmarkRun") {
		t.Fatalf("a Slower pair without its baseline run: %+v", c)
	}
	// Nothing Slower within the run: the unread baseline makes the answer Unknown.
	run = pairRun("r", map[string][]int64{"a": {100, 101, 102, 103, 104}, "b": {100, 102, 101, 104, 103}})
	run.Spec.Baseline = &benchv1.Baseline{Run: "gone"}
	Compare(run, nil, "", "gone", notify)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineUnavailable {
		t.Fatalf("no pair Slower, no baseline run: %+v", c)
	}

	env := func(cpu string) *benchv1.Environment {
		return &benchv1.Environment{Mode: "Local", Nodes: []benchv1.NodeFingerprint{{Name: "h", Role: "Both", CPUModel: cpu, CPUs: 2}}}
	}
	base := pairRun("base", map[string][]int64{"a": {100, 101, 102, 103, 104}, "b": {100, 101, 102, 103, 104}})
	cur := pairRun("cur", map[string][]int64{"a": {130, 131, 132, 133, 134}, "b": {130, 131, 132, 133, 134}})
	cur.Spec.Targets[1].BaselineTarget = ""
	base.Status.Environment, cur.Status.Environment = env("EPYC 7R13"), env("Xeon 8375C")
	said = nil
	Compare(cur, base, "results/base", "", notify)
	c = meta.FindStatusCondition(cur.Status.Conditions, benchv1.ConditionRegressed)
	if c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonEnvironmentChanged || len(said) != 1 || said[0] != benchv1.ReasonEnvironmentChanged {
		t.Fatalf("across machines: %+v, said %v", c, said)
	}
	// Nothing to compare at all: no condition, no event.
	plain := pairRun("p", nil)
	plain.Spec.Targets[1].BaselineTarget = ""
	said = nil
	Compare(plain, nil, "", "", notify)
	if meta.FindStatusCondition(plain.Status.Conditions, benchv1.ConditionRegressed) != nil || len(said) != 0 {
		t.Fatalf("no comparison asked: %+v %v", plain.Status.Conditions, said)
	}
}
