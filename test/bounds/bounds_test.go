// Package bounds holds the property the schema's bounds exist for: every spec the schema
// accepts plans into distinct trial and object names, and its status, at its worst, fits in
// one etcd object. Specs are judged by internal/validation, which runs the generated CRD's
// structural schema and CEL rules the way the API server does.
package bounds

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

// maxStatusBytes is the bound the worst status must stay under (etcd takes about 1.5 MiB
// per object, and the spec shares it).
const maxStatusBytes = 1 << 20

// shape is one point of the generator: how many of each list, and how names are made.
type shape struct {
	targets, scenarios, points, reps int
	closed                           bool
	// names: "chain" makes names that collide when joined with "-" (x, x-x, x-x-x, ...),
	// "long" makes 40-character names, anything else short distinct ones.
	names string
	run   string
}

func (s shape) String() string {
	return fmt.Sprintf("%dt x %ds x %dp x %dr closed=%v names=%s run=%.20s", s.targets, s.scenarios, s.points, s.reps, s.closed, s.names, s.run)
}

// name returns the i-th name of a family (a DNS label of at most 40 characters).
func name(style, family string, i int) string {
	switch style {
	case "chain":
		// x, x-x, x-x-x, ... then y, y-y, ...: "go"/"go-fast" with "fast-ping"/"ping" at scale.
		letter := string(rune('x' + i/19))
		return letter + strings.Repeat("-"+letter, i%19)
	case "long":
		n := fmt.Sprintf("%s%d", family, i)
		return n + strings.Repeat("-a", (40-len(n))/2) + strings.Repeat("b", (40-len(n))%2)
	}
	return fmt.Sprintf("%s%d", family, i)
}

// document is the spec as a user would write it: YAML, with defaults left to the schema.
func (s shape) document() []byte {
	var targets, scenarios []map[string]any
	for i := 0; i < s.targets; i++ {
		targets = append(targets, map[string]any{"name": name(s.names, "t", i), "image": "registry.example/t:1", "port": 8080})
	}
	for i := 0; i < s.scenarios; i++ {
		scenarios = append(scenarios, map[string]any{"name": name(s.names, "s", i), "workload": "ping"})
	}
	var points []int
	max := 10000000
	if s.closed {
		max = 1000000
	}
	for i := 0; i < s.points; i++ {
		points = append(points, max-i) // the longest numbers the schema takes
	}
	load := map[string]any{"repetitions": s.reps, "warmup": "1h", "duration": "6h"}
	if s.closed {
		load["model"], load["connections"] = "Closed", points
	} else {
		load["rates"] = points
	}
	doc := map[string]any{
		"apiVersion": "gauntlet.dev/v1alpha1", "kind": "BenchmarkRun",
		"metadata": map[string]any{"name": s.run, "namespace": "perf"},
		"spec":     map[string]any{"targets": targets, "scenarios": scenarios, "load": load},
	}
	out, _ := yaml.Marshal(doc)
	return out
}

var validator *validation.Validator

func TestMain(m *testing.M) {
	var err error
	if validator, err = validation.New(); err != nil {
		panic(err)
	}
	m.Run()
}

// check is the property for one spec; it returns whether the spec was accepted.
func check(t *testing.T, s shape) bool {
	t.Helper()
	doc := validator.Validate(context.Background(), s.document())
	// Every scenario and load point also gets a generator-floor trial (plan.WithCalibration).
	trials := s.scenarios * s.points * (s.targets*s.reps + 1)
	if len(doc.Errors) > 0 {
		for _, e := range doc.Errors {
			if e.Field == "" || e.Field == "<nil>" {
				t.Errorf("%s: refused without a field path: %v", s, e)
			}
		}
		if trials <= benchv1.MaxTrials && s.targets <= 32 && s.scenarios <= 32 && s.points <= 16 && s.reps <= 20 {
			t.Errorf("%s: a spec within every bound was refused: %v", s, doc.Errors)
		}
		return false
	}
	if trials > benchv1.MaxTrials {
		t.Errorf("%s: %d trials accepted, more than %d", s, trials, benchv1.MaxTrials)
	}
	run := doc.Run
	run.UID = "uid"
	planned, err := plan.Build(&run.Spec, nil)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	planned = plan.WithCalibration(planned)
	if len(planned) != trials {
		t.Errorf("%s: %d trials planned, want %d", s, len(planned), trials)
	}
	names := map[string]string{}
	distinct := func(kind, n string, limit int) {
		if len(n) > limit {
			t.Errorf("%s: %s name %q is longer than %d", s, kind, n, limit)
		}
		if prev, ok := names[n]; ok {
			t.Errorf("%s: %s and %s are both named %q", s, prev, kind, n)
		}
		names[n] = kind
	}
	trialNames := map[string]bool{}
	for _, tr := range planned {
		if trialNames[tr.Name] {
			t.Errorf("%s: two trials named %q", s, tr.Name)
		}
		trialNames[tr.Name] = true
		distinct("TestRun of "+tr.Name, specs.TrialName(run, tr.Name), 50)
	}
	for _, tg := range run.Spec.Targets {
		distinct("target "+tg.Name, specs.TargetName(run, tg.Name), 63)
	}
	distinct("cluster", specs.ClusterName(run), 50)
	distinct("pooler", specs.PoolerName(run), 63)
	distinct("schema", specs.SchemaName(run), 63)

	run.Status = worstStatus(run, planned)
	run.Status.Bound()
	size := statusSize(t, run.Status)
	if size >= maxStatusBytes {
		t.Errorf("%s: worst status is %d bytes, over %d", s, size, maxStatusBytes)
	}
	// What Bound leaves is what the status schema accepts: the API server would take the write.
	whole, _ := json.Marshal(run)
	if d := validator.Validate(context.Background(), whole); len(d.Errors) > 0 {
		t.Errorf("%s: the bounded worst status is refused by the schema: %v", s, d.Errors)
	}
	return true
}

func statusSize(t *testing.T, st benchv1.BenchmarkRunStatus) int {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// worstStatus is the largest status the run could have: every trial failed with a result,
// every message far longer than its bound, every figure at its longest.
func worstStatus(run *benchv1.BenchmarkRun, trials []plan.Trial) benchv1.BenchmarkRunStatus {
	long := strings.Repeat("é", 50000) // multi-byte, so cuts must respect UTF-8
	at := metav1.NewTime(time.Date(2026, 11, 23, 23, 59, 59, 0, time.UTC))
	big := int64(math.MaxInt64)
	st := benchv1.BenchmarkRunStatus{
		Phase: benchv1.PhaseFailed, ObservedGeneration: big,
		Progress: fmt.Sprintf("%d/%d", len(trials), len(trials)), Headline: long,
		StartedAt: &at, FinishedAt: &at,
	}
	var names []string
	for _, t := range run.Spec.Targets {
		names = append(names, t.Name)
		ts := benchv1.TargetStatus{Name: t.Name, Ready: true, Verification: benchv1.VerificationFailed}
		for i := 0; i < 50; i++ {
			ts.FailedChecks = append(ts.FailedChecks, long)
		}
		st.Targets = append(st.Targets, ts)
	}
	st.TargetNames = strings.Join(names, ",")
	for _, c := range []string{benchv1.ConditionAccepted, benchv1.ConditionDependenciesReady, benchv1.ConditionDatabaseReady,
		benchv1.ConditionTargetsReady, benchv1.ConditionTargetsVerified, benchv1.ConditionNodePoolsAvailable, benchv1.ConditionComplete,
		benchv1.ConditionSLOMet, benchv1.ConditionRegressed, benchv1.ConditionReady, benchv1.ConditionReconciling, benchv1.ConditionStalled} {
		st.Conditions = append(st.Conditions, metav1.Condition{Type: c, Status: metav1.ConditionFalse, ObservedGeneration: big,
			LastTransitionTime: at, Reason: "VerificationFailed", Message: long})
	}
	m := benchv1.Measurement{Requests: big, AchievedMilliRPS: big, P50Micros: big, P90Micros: big, P95Micros: big, P99Micros: big,
		P999Micros: big, MaxMicros: big, Errors: big, ErrorRatePPM: big, DroppedIterations: big, CPUMillicores: big,
		CPUPeakMillicores: big, MemoryBytes: big, MemoryPeakBytes: big, GeneratorCPUMillicores: big,
		Wire: &benchv1.WireLatency{Requests: big, Unanswered: big, ErrorResponses: big, P50Micros: big, P90Micros: big, P95Micros: big,
			P99Micros: big, P999Micros: big, MaxMicros: big, DroppedPackets: big}}
	st.Placement = &benchv1.Placement{GeneratorCPUs: "0-511", TargetCPUs: "512-1023", Shared: true, Message: long}
	for _, t := range trials {
		tr := t.Status()
		tr.Phase, tr.Message, tr.TestRun = benchv1.TrialFailed, long, specs.TrialName(run, t.Name)
		tr.MeasureStart, tr.MeasureEnd, tr.FinishedAt, tr.Result = &at, &at, &at, &m
		st.Trials = append(st.Trials, tr)
	}
	// A figure has a confidence interval only over 6 or more repetitions (results.Summarize).
	reps := int32(0)
	for _, t := range trials {
		reps = max(reps, t.Repetition)
	}
	stat := benchv1.Stat{Median: big, Min: big, Max: big}
	if reps >= 6 {
		stat.CILow, stat.CIHigh = &big, &big
	}
	dist := &benchv1.LatencyStats{Requests: stat, P50Micros: stat, P90Micros: stat, P95Micros: stat, P99Micros: stat, P999Micros: stat, MaxMicros: stat}
	floor := &benchv1.GeneratorFloor{P50Micros: big, P99Micros: big, P999Micros: big}
	st.Baseline = &benchv1.BaselineRef{Run: strings.Repeat("b", 253), Source: strings.Repeat("s", 1024), Metric: "p999", MinEffect: "0.0001"}
	comparison := benchv1.Comparison{Verdict: benchv1.VerdictInconclusive, Metric: "p999", Source: benchv1.LatencyGenerator,
		BaselineRepetitions: math.MaxInt32, BaselineMicros: big, Micros: big, ShiftMicros: -big, ShiftPPM: -big, ShiftLowPPM: ptr.To(-big), ShiftHighPPM: ptr.To(-big), PValue: "0.00000000000001",
		Message: long}
	for _, t := range trials {
		if t.Repetition != 1 || t.Short || t.Calibration {
			continue // one row per target x scenario x load point; a search's short steps and the floor trials make none
		}
		st.Results = append(st.Results, benchv1.ResultRow{
			Target: t.Target, Scenario: t.Scenario, LoadPoint: t.LoadPoint, Repetitions: math.MaxInt32,
			AchievedMilliRPS: stat, P50Micros: stat, P90Micros: stat, P95Micros: stat, P99Micros: stat, P999Micros: stat,
			MaxMicros: stat, ErrorRatePPM: stat, DroppedIterations: stat, CPUMillicores: &stat, MemoryBytes: &stat,
			CostMicroUSDPerMillion: ptr.To(big), SLO: benchv1.VerdictMissed,
			LatencySource: benchv1.LatencyGenerator, Wire: dist, GeneratorFloor: floor,
			Flags:   mostFlags,
			Message: long, Baseline: comparison.DeepCopy(),
		})
	}
	return st
}

// mostFlags are the most flags one row can carry: every one but GeneratorLimited, which
// only a closed model's row carries, and a closed model has no DroppedIterations or
// RateShortfall.
var mostFlags = slices.DeleteFunc(slices.Clone(results.ValidityFlags), func(f string) bool { return f == results.FlagGeneratorLimited })

// runNames are run names at the edges: short, with dots, and the longest a name may be.
var runNames = []string{"a", "bench.v2-" + strings.Repeat("r", 40), strings.Repeat("n", 63) + "." + strings.Repeat("m", 63) + "." + strings.Repeat("k", 63) + "." + strings.Repeat("j", 61)}

// An exhaustive walk over the schema's bounds: every list at 1, 2 and its maximum, both load
// models, colliding, long and plain names.
func TestEveryAcceptedSpecFits(t *testing.T) {
	accepted, refused, largest := 0, 0, 0
	for _, nt := range []int{1, 2, 32} {
		for _, ns := range []int{1, 2, 32} {
			for _, np := range []int{1, 16} {
				for _, nr := range []int{1, 20} {
					for _, closed := range []bool{false, true} {
						// Name styles and run names rotate over the grid rather than multiply it.
						i := (nt + ns + np + nr) % 3
						s := shape{nt, ns, np, nr, closed, []string{"chain", "long", "plain"}[i], runNames[(i+btoi(closed))%3]}
						if check(t, s) {
							accepted++
						} else {
							refused++
						}
					}
				}
			}
		}
	}
	// The largest accepted shapes, sized explicitly: 180 trials with one repetition (a result
	// row per trial) and with twenty, and the most targets; a generator-floor trial per
	// scenario and load point counts in the 200.
	for _, s := range []shape{{21, 8, 1, 1, false, "long", runNames[2]}, {8, 20, 1, 1, true, "chain", runNames[1]},
		{29, 6, 1, 1, false, "long", runNames[2]}, {1, 10, 1, 17, false, "long", runNames[2]}, {200, 1, 1, 1, false, "plain", "x"},
		{1, 1, 16, 25, false, "plain", "x"}} {
		if check(t, s) {
			accepted++
			run := &benchv1.BenchmarkRun{}
			_ = yaml.Unmarshal(s.document(), run)
			planned, _ := plan.Build(&run.Spec, nil)
			st := worstStatus(run, plan.WithCalibration(planned))
			st.Bound()
			largest = max(largest, statusSize(t, st))
		} else {
			refused++
		}
	}
	t.Logf("%d specs accepted, %d refused with a field path; largest worst status %d bytes (bound %d)", accepted, refused, largest, maxStatusBytes)
	if accepted == 0 || refused == 0 {
		t.Errorf("the walk must reach both sides of the bounds: %d accepted, %d refused", accepted, refused)
	}
}

// The trial bound is the one the status needs: 180 trials (with the generator-floor ones) are
// accepted, more are refused, with the field path and the reason.
func TestTheTrialBoundIsEnforced(t *testing.T) {
	ok := validator.Validate(context.Background(), shape{8, 20, 1, 1, false, "plain", "x"}.document())
	if len(ok.Errors) > 0 {
		t.Fatalf("180 trials refused: %v", ok.Errors)
	}
	bad := validator.Validate(context.Background(), shape{3, 7, 1, 10, false, "plain", "x"}.document())
	if len(bad.Errors) != 1 || bad.Errors[0].Field != "spec.load.repetitions" || !strings.Contains(bad.Errors[0].Detail, "at most 180") {
		t.Fatalf("217 trials: got %v, want one error at spec.load.repetitions saying at most 180", bad.Errors)
	}
	t.Logf("217 trials: %v", bad.Errors[0])
}

// FuzzSpecShapes explores shapes beyond the grid, including ones past the schema's bounds
// (those must be refused with a field path). `go test` runs the seed corpus.
func FuzzSpecShapes(f *testing.F) {
	f.Add(uint8(2), uint8(2), uint8(1), uint8(1), false, uint8(0), uint8(0))
	f.Add(uint8(32), uint8(12), uint8(1), uint8(1), true, uint8(1), uint8(2))
	f.Add(uint8(33), uint8(1), uint8(1), uint8(1), false, uint8(2), uint8(1))
	f.Add(uint8(1), uint8(1), uint8(17), uint8(1), false, uint8(0), uint8(0))
	f.Add(uint8(5), uint8(5), uint8(4), uint8(4), true, uint8(0), uint8(2))
	f.Add(uint8(4), uint8(5), uint8(4), uint8(5), false, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, nt, ns, np, nr uint8, closed bool, style, run uint8) {
		s := shape{int(nt%40) + 1, int(ns%40) + 1, int(np%20) + 1, int(nr%25) + 1, closed,
			[]string{"chain", "long", "plain"}[style%3], runNames[int(run)%len(runNames)]}
		check(t, s)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A capacity search adds trials as it goes: at most maxSteps + 2 x repetitions per target
// and scenario (internal/search keeps to that; the CEL rule counts it). At its worst every
// one is a full-length trial at a rate of its own (a row each), and status.search repeats
// each as a step: that status must fit too.
func TestSearchStatusFits(t *testing.T) {
	largest := 0
	for _, c := range []struct {
		targets, scenarios, points, reps, steps int
	}{{1, 1, 16, 1, 40}, {4, 1, 1, 1, 40}, {2, 2, 4, 1, 36}, {1, 4, 1, 2, 36}, {7, 1, 1, 3, 16}, {32, 1, 0, 1, 2}, {9, 5, 0, 1, 2}, {6, 7, 0, 1, 2}} {
		s := shape{c.targets, c.scenarios, c.points, c.reps, false, "long", runNames[2]}
		raw := map[string]any{}
		_ = yaml.Unmarshal(s.document(), &raw)
		load := raw["spec"].(map[string]any)["load"].(map[string]any)
		load["search"] = map[string]any{"maxSteps": c.steps}
		if c.points == 0 {
			delete(load, "rates")
		}
		doc, _ := yaml.Marshal(raw)
		d := validator.Validate(context.Background(), doc)
		if len(d.Errors) > 0 {
			t.Fatalf("%+v: refused: %v", c, d.Errors)
		}
		run := d.Run
		planned, err := plan.Build(&run.Spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Fill every search to its bound with full-length steps at rates of their own (its
		// first step is always short: plan.Build's, a row of none).
		perSearch := c.steps + 2*c.reps
		for _, sc := range run.Spec.Scenarios {
			for _, tg := range run.Spec.Targets {
				for step := int32(2); step <= int32(perSearch); step++ {
					planned = append(planned, plan.Trial{Index: int32(len(planned)), Target: tg.Name, Scenario: sc.Name,
						LoadPoint: 10_000_000 - step, Repetition: 1, SearchStep: step, Name: plan.SearchTrialName(tg.Name, sc.Name, step)})
				}
			}
		}
		if len(planned) > benchv1.MaxTrials {
			t.Fatalf("%+v: %d trials accepted, more than %d", c, len(planned), benchv1.MaxTrials)
		}
		st := worstStatus(run, planned)
		// Every full-length search trial makes a row of its own (worstStatus made rows of
		// repetition 1 only, which is every one of them here).
		long := strings.Repeat("é", 50000)
		big := int64(math.MaxInt64)
		for _, sc := range run.Spec.Scenarios {
			for _, tg := range run.Spec.Targets {
				cs := benchv1.CapacitySearch{Target: tg.Name, Scenario: sc.Name, Phase: benchv1.SearchConfirming, CapacityRPS: math.MaxInt32,
					UpperRPS: math.MaxInt32, Bound: benchv1.BoundCapacity, Confidence: benchv1.ConfidenceMedium, PassedRepetitions: math.MaxInt32,
					Repetitions: math.MaxInt32, CostMicroUSDPerMillion: ptr.To(big), Message: long}
				for _, tr := range planned {
					if tr.Target == tg.Name && tr.Scenario == sc.Name && tr.SearchStep > 0 {
						cs.Steps = append(cs.Steps, benchv1.SearchStep{Trial: tr.Name, Kind: benchv1.StepConfirm, RPS: math.MaxInt32,
							Outcome: benchv1.StepGeneratorLimited, P99Micros: big, AchievedMilliRPS: big, Reason: long})
					}
				}
				st.Search = append(st.Search, cs)
			}
		}
		st.Capacity = long
		st.Bound()
		size := statusSize(t, st)
		largest = max(largest, size)
		if size >= maxStatusBytes {
			t.Errorf("%+v: worst status with a search is %d bytes, over %d", c, size, maxStatusBytes)
		}
		run.Status = st
		whole, _ := json.Marshal(run)
		if d := validator.Validate(context.Background(), whole); len(d.Errors) > 0 {
			t.Errorf("%+v: the bounded worst status is refused by the schema: %v", c, d.Errors)
		}
	}
	t.Logf("largest worst status with a search: %d bytes (bound %d)", largest, maxStatusBytes)
}
