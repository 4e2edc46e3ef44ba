package compare

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// runWith is a finished run of go and node on ping at 500/s whose repetitions have the
// given p50s (µs) per target; wire adds complete wire captures at half of k6's figure.
func runWith(name string, p50s map[string][]int64, wire bool) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec = benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go"}, {Name: "node"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{500}},
	}
	for _, target := range []string{"go", "node"} {
		for i, v := range p50s[target] {
			m := &benchv1.Measurement{Requests: 1000, AchievedMilliRPS: 500_000, P50Micros: v, P90Micros: 2 * v, P95Micros: 3 * v, P99Micros: 4 * v, P999Micros: 5 * v}
			if wire {
				m.Wire = &benchv1.WireLatency{Requests: 1000, P50Micros: v / 2, P99Micros: 2 * v}
			}
			run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Target: target, Scenario: "ping", LoadPoint: 500,
				Repetition: int32(i + 1), Phase: benchv1.TrialSucceeded, Result: m})
		}
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	return run
}

func TestApplyFlagsTheSlowerRow(t *testing.T) {
	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {200, 201, 202, 203, 204}}, true)
	run := runWith("after", map[string][]int64{"go": {101, 100, 104, 102, 103}, "node": {250, 251, 252, 253, 254}}, true)
	o, _ := OptionsFrom(nil)
	Apply(run, base, "default/before", o)
	rows := run.Status.Results
	if rows[0].Baseline.Verdict != benchv1.VerdictNoChange || rows[1].Baseline.Verdict != benchv1.VerdictSlower {
		t.Fatalf("verdicts: %+v / %+v", rows[0].Baseline, rows[1].Baseline)
	}
	// Both sides captured on the wire: the wire's p50 (half k6's here) is compared.
	if c := rows[1].Baseline; c.Source != benchv1.LatencyWire || c.BaselineMicros != 101 || c.Micros != 126 || c.BaselineRepetitions != 5 {
		t.Fatalf("node: %+v", c)
	}
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != benchv1.ReasonSlower || !strings.Contains(cond.Message, "node/ping@500 +") {
		t.Fatalf("Regressed: %+v", cond)
	}
	if ref := run.Status.Baseline; ref == nil || ref.Run != "before" || ref.Source != "default/before" || ref.Metric != "p50" {
		t.Fatalf("status.baseline: %+v", ref)
	}

	// The same run against itself regresses nothing; p99 is read from k6 when a side has
	// no wire capture.
	again := runWith("again", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {200, 201, 202, 203, 204}}, false)
	o.Metric = "p99"
	Apply(again, base, "dir", o)
	for _, r := range again.Status.Results {
		if r.Baseline.Verdict != benchv1.VerdictNoChange || r.Baseline.Source != benchv1.LatencyGenerator || r.Baseline.BaselineMicros != r.Baseline.Micros {
			t.Fatalf("%s: %+v", r.Target, r.Baseline)
		}
	}
	if c := meta.FindStatusCondition(again.Status.Conditions, benchv1.ConditionRegressed); c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonNoRegression {
		t.Fatalf("Regressed: %+v", c)
	}
}

func TestRowsWithoutAMatch(t *testing.T) {
	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103}}, false)
	run := runWith("after", map[string][]int64{"go": {100, 101, 102, 103}, "node": {1, 2, 3, 4}}, false)
	// Two of go's four repetitions had a saturated generator: two valid ones are too few.
	for i := 0; i < 2; i++ {
		run.Status.Trials[i].Result.GeneratorCPUMillicores, run.Status.Trials[i].Result.GeneratorCPULimitMillicores = 900, 1000
	}
	o, _ := OptionsFrom(nil)
	v := Rows(run, base, o)
	if v[0] != benchv1.VerdictInconclusive || !strings.Contains(run.Status.Results[0].Baseline.Message, "4 and 2 valid repetitions") {
		t.Fatalf("too few valid repetitions: %+v", run.Status.Results[0].Baseline)
	}
	// k6 and the targets shared CPUs: the whole row is void.
	run.Status.Results[0].Flags = []string{results.FlagSharedCores}
	if v := Rows(run, base, o); v[0] != benchv1.VerdictInconclusive || !strings.Contains(run.Status.Results[0].Baseline.Message, "SharedCores") {
		t.Fatalf("shared cores: %+v", run.Status.Results[0].Baseline)
	}
	run.Status.Results[0].Flags = nil
	for i := 0; i < 2; i++ {
		run.Status.Trials[i].Result.GeneratorCPUMillicores = 0
	}
	if v[1] != benchv1.VerdictInconclusive || !strings.Contains(run.Status.Results[1].Baseline.Message, "no measured row for node/ping at 500") {
		t.Fatalf("unmatched row: %+v", run.Status.Results[1].Baseline)
	}
	closed := runWith("closed", map[string][]int64{"go": {100, 101, 102, 103}}, false)
	closed.Spec.Load.Model = benchv1.LoadModelClosed
	if v := Rows(closed, base, o); v[0] != benchv1.VerdictInconclusive || !strings.Contains(closed.Status.Results[0].Baseline.Message, "open model") {
		t.Fatalf("model mismatch: %+v", closed.Status.Results[0].Baseline)
	}
	// A baseline whose rows were never aggregated (a status written mid-run) is aggregated here.
	base.Status.Results = nil
	if v := Rows(run, base, o); v[0] != benchv1.VerdictNoChange {
		t.Fatalf("unaggregated baseline: %v %+v", v, run.Status.Results[0].Baseline)
	}
}

func TestCarryOverKeepsVerdictsAcrossReaggregation(t *testing.T) {
	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103}}, false)
	run := runWith("after", map[string][]int64{"go": {200, 201, 202, 203}}, false)
	o, _ := OptionsFrom(nil)
	Apply(run, base, "x", o)
	fresh := results.Aggregate(&run.Spec, run.Status.Trials)
	CarryOver(run.Status.Results, fresh)
	if fresh[0].Baseline == nil || fresh[0].Baseline.Verdict != benchv1.VerdictSlower {
		t.Fatalf("%+v", fresh[0].Baseline)
	}
	Unavailable(run, "baseline run x not found")
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineUnavailable {
		t.Fatalf("%+v", c)
	}
}

// One stalled repetition of five is left out, said, and the verdict stands on the others.
func TestARepetitionLeftOut(t *testing.T) {
	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103, 104}}, false)
	run := runWith("after", map[string][]int64{"go": {150, 151, 152, 153, 154}}, false)
	run.Status.Trials[2].Result.DroppedIterations = 7
	o, _ := OptionsFrom(nil)
	if v := Rows(run, base, o); v[0] != benchv1.VerdictSlower {
		t.Fatalf("%+v", run.Status.Results[0].Baseline)
	}
	if c := run.Status.Results[0].Baseline; c.Message != "this run: repetitions left out (DroppedIterations 1)" || c.BaselineRepetitions != 5 {
		t.Fatalf("%+v", c)
	}
}

// A capacity search's rows at rates only one run measured are not compared; the answers
// are, as a change reported beside the verdicts.
func TestSearchRowsAndCapacityChanges(t *testing.T) {
	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103}}, false)
	run := runWith("after", map[string][]int64{"go": {100, 101, 102, 103}}, false)
	extra := run.Status.Results[0]
	extra.LoadPoint = 432 // a search's answer in this run only
	run.Status.Results = append(run.Status.Results, extra)
	base.Status.Search = []benchv1.CapacitySearch{{Target: "go", Scenario: "ping", Phase: benchv1.SearchDone, CapacityRPS: 480, Bound: benchv1.BoundCapacity}}
	run.Status.Search = []benchv1.CapacitySearch{{Target: "go", Scenario: "ping", Phase: benchv1.SearchDone, CapacityRPS: 432, Bound: benchv1.BoundCapacity}}
	o, _ := OptionsFrom(nil)
	Apply(run, base, "x", o)
	if run.Status.Results[0].Baseline == nil || run.Status.Results[1].Baseline != nil {
		t.Fatalf("fixed point compared, search rate not: %+v / %+v", run.Status.Results[0].Baseline, run.Status.Results[1].Baseline)
	}
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if !strings.Contains(c.Message, "capacity go/ping 480/s → 432/s (-10.0%)") || !strings.Contains(c.Message, "1 NoChange, 0 Inconclusive") {
		t.Fatalf("%s", c.Message)
	}
}

// CPU time per request: the target's mean CPU over the achieved rate, per repetition.
func TestCPUPerRequest(t *testing.T) {
	withCPU := func(name string, mc ...int64) *benchv1.BenchmarkRun {
		run := runWith(name, map[string][]int64{"go": {100, 100, 100, 100, 100}}, false)
		for i := range run.Status.Trials {
			run.Status.Trials[i].Result.CPUMillicores = mc[i]
		}
		return run
	}
	base := withCPU("before", 66, 65, 67, 66, 68)
	run := withCPU("after", 80, 79, 81, 80, 82)
	o, err := OptionsFrom(&benchv1.Baseline{Metric: MetricCPU})
	if err != nil {
		t.Fatal(err)
	}
	Apply(run, base, "x", o)
	// 66 millicores at 500 req/s: 132 µs of CPU per request.
	if c := run.Status.Results[0].Baseline; c.Verdict != benchv1.VerdictSlower || c.BaselineMicros != 132 || c.Micros != 160 || c.Source != "" || c.Repetitions != 5 {
		t.Fatalf("%+v", c)
	}
	run.Status.Trials[0].Result.CPUMillicores = 0
	Apply(run, base, "x", o)
	if c := run.Status.Results[0].Baseline; c.Verdict != benchv1.VerdictInconclusive || !strings.Contains(c.Message, "no CPU figure") {
		t.Fatalf("%+v", c)
	}
}
