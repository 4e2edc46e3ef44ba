package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// target models a server: it keeps any rate up to capacity with a p99 of 2 ms, and beyond
// it serves only capacity (a rate shortfall) at 900 ms; a load generator above genLimit
// uses 40% of its CPU. noise, when set, decides per trial whether it comes out worse.
type target struct {
	capacity, genLimit int32
	// longCapacity, when set, is what it sustains over a full-length window; longGenLimit
	// what the load generator holds over one.
	longCapacity, longGenLimit int32
	noise                      func(rate int32, short bool) bool
}

func (tg target) measure(t benchv1.Trial) *benchv1.Measurement {
	capacity := tg.capacity
	if !t.Short && tg.longCapacity > 0 {
		capacity = tg.longCapacity
	}
	m := &benchv1.Measurement{Requests: int64(t.LoadPoint) * 10, AchievedMilliRPS: int64(t.LoadPoint) * 1000, P99Micros: 2000,
		GeneratorCPUMillicores: 100, GeneratorCPULimitMillicores: 1000}
	if t.LoadPoint > capacity {
		m.AchievedMilliRPS, m.P99Micros = int64(capacity)*1000, 900_000
	}
	if tg.genLimit > 0 && t.LoadPoint > tg.genLimit || !t.Short && tg.longGenLimit > 0 && t.LoadPoint > tg.longGenLimit {
		m.GeneratorCPUMillicores = 400
	}
	if tg.noise != nil && tg.noise(t.LoadPoint, t.Short) {
		m.P99Micros = 200_000 // a stall on a busy machine
	}
	return m
}

func searchSpec(start, maxRate int32, width string, maxSteps int32) *benchv1.BenchmarkRunSpec {
	return &benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go", NodePool: "c7g"}},
		NodePools: []benchv1.NodePool{{Name: "c7g", HourlyPrice: "0.36"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load: benchv1.Load{Model: benchv1.LoadModelOpen, Repetitions: 3,
			Search: &benchv1.Search{Start: start, MaxRate: maxRate, Width: width, MaxSteps: maxSteps, Attempts: 3}},
		SLO: &benchv1.SLO{P99: "100ms"},
	}
}

// drive runs a search to its end against the model, as either mode would: plan, then run
// each pending trial and ask for more.
func drive(t *testing.T, spec *benchv1.BenchmarkRunSpec, tg target) (benchv1.CapacitySearch, []benchv1.Trial) {
	t.Helper()
	planned, err := plan.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := &benchv1.BenchmarkRunStatus{}
	for _, p := range planned {
		st.Trials = append(st.Trials, p.Status())
	}
	for i := 0; i < 500; i++ {
		for j := range st.Trials {
			if tr := &st.Trials[j]; tr.Phase == benchv1.TrialPending {
				tr.Phase, tr.Result = benchv1.TrialSucceeded, tg.measure(*tr)
			}
		}
		if Advance(spec, st) == 0 {
			s := Status(spec, st.Trials)
			if len(s) != 1 {
				t.Fatalf("%d searches", len(s))
			}
			return s[0], st.Trials
		}
	}
	t.Fatal("the search never ended")
	return benchv1.CapacitySearch{}, nil
}

func TestSearchFindsTheCapacityWithinTheWidth(t *testing.T) {
	s, trials := drive(t, searchSpec(50, 1_000_000, "0.05", 12), target{capacity: 480})
	if s.Phase != benchv1.SearchDone || s.Bound != benchv1.BoundCapacity || s.Confidence != benchv1.ConfidenceHigh {
		t.Fatalf("%+v", s)
	}
	if s.CapacityRPS > 480 || s.UpperRPS <= 480 || (s.UpperRPS-s.CapacityRPS)*20 > s.CapacityRPS {
		t.Fatalf("answer %d, upper %d: not within 5%% of 480", s.CapacityRPS, s.UpperRPS)
	}
	if s.PassedRepetitions != 3 || s.Repetitions != 3 || !strings.Contains(s.Message, "3 of 3") || !strings.Contains(s.Message, "RateShortfall") {
		t.Fatalf("%+v", s)
	}
	// 0.36 $/h at s.CapacityRPS: micro-USD per million requests.
	if want := int64(360000) * 1_000_000 / (int64(s.CapacityRPS) * 3600); s.CostMicroUSDPerMillion == nil || *s.CostMicroUSDPerMillion != want {
		t.Fatalf("cost %v, want %d", s.CostMicroUSDPerMillion, want)
	}
	// The status names every trial once, in order: brackets, then bisects, then confirms.
	kinds := ""
	for i, st := range s.Steps {
		if st.Trial != trials[i].Name || st.Outcome == benchv1.StepPending {
			t.Fatalf("step %d: %+v / trial %s", i, st, trials[i].Name)
		}
		kinds += string(st.Kind[:2])
	}
	if !strings.HasPrefix(kinds, "BrBrBrBr") || !strings.Contains(kinds, "Bi") || !strings.HasSuffix(kinds, "CoCoCo") {
		t.Fatalf("step kinds %s", kinds)
	}
	// Failing rates were measured Attempts-majority times; passing ones once.
	for _, st := range s.Steps {
		if st.Outcome == benchv1.StepFail && st.Reason == "" {
			t.Fatalf("a failed step must say why: %+v", st)
		}
	}
	if Summary([]benchv1.CapacitySearch{s}) != "go/ping "+itoa(s.CapacityRPS)+"/s" {
		t.Fatalf("summary %q", Summary([]benchv1.CapacitySearch{s}))
	}
}

func itoa(v int32) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'))[:0] + fmtInt(v))
}

func fmtInt(v int32) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func TestGeneratorSaturationIsALowerBound(t *testing.T) {
	s, _ := drive(t, searchSpec(100, 1_000_000, "0.05", 12), target{capacity: 50_000, genLimit: 1000})
	if s.Phase != benchv1.SearchDone || s.Bound != benchv1.BoundLower || s.CapacityRPS > 1000 || s.CapacityRPS < 950 {
		t.Fatalf("%+v", s)
	}
	if !strings.Contains(s.Message, "at least") || !strings.Contains(s.Message, "load generator saturated") {
		t.Fatalf("message %q", s.Message)
	}
	if Summary([]benchv1.CapacitySearch{s}) != "go/ping >="+fmtInt(s.CapacityRPS)+"/s" {
		t.Fatalf("summary %q", Summary([]benchv1.CapacitySearch{s}))
	}
	// A GeneratorLimited step is never retried: it says nothing of the target.
	for i, st := range s.Steps[1:] {
		if prev := s.Steps[i]; prev.Outcome == benchv1.StepGeneratorLimited && st.RPS == prev.RPS {
			t.Fatalf("retried a generator-limited rate: %+v", s.Steps)
		}
	}
	// A generator that cannot hold any full-length window the short steps passed: no answer
	// is confirmed, yet the target never failed: the best rate passed is a lower bound.
	s, _ = drive(t, searchSpec(400, 1_000_000, "0.05", 10), target{capacity: 50_000, genLimit: 2500, longGenLimit: 1000})
	if s.Phase != benchv1.SearchDone || s.Bound != benchv1.BoundLower || s.Confidence != benchv1.ConfidenceLow ||
		s.CapacityRPS < 1000 || s.CapacityRPS > 2500 || !strings.Contains(s.Message, "every failure was the load generator's") {
		t.Fatalf("generator short of full-length windows: %+v", s)
	}
	// maxRate held: also a lower bound.
	s, _ = drive(t, searchSpec(100, 700, "0.05", 12), target{capacity: 50_000})
	if s.Bound != benchv1.BoundLower || s.CapacityRPS != 700 || !strings.Contains(s.Message, "maxRate") {
		t.Fatalf("maxRate: %+v", s)
	}
}

func TestNoisyStepsAreRetriedNotTrusted(t *testing.T) {
	seen := map[int32]bool{}
	// The first short trial at every rate stalls; the retries do not.
	noise := func(rate int32, short bool) bool {
		if !short || seen[rate] {
			return false
		}
		seen[rate] = true
		return true
	}
	s, _ := drive(t, searchSpec(50, 1_000_000, "0.05", 40), target{capacity: 480, noise: noise})
	if s.Phase != benchv1.SearchDone || s.CapacityRPS > 480 || s.UpperRPS <= 480 || s.Confidence != benchv1.ConfidenceMedium ||
		!strings.Contains(s.Message, "contradictory") {
		t.Fatalf("%+v", s)
	}
}

func TestFullLengthTrialsOverturnShortOnes(t *testing.T) {
	// It keeps 500/s for a short window but only 400/s for a full one.
	s, _ := drive(t, searchSpec(50, 1_000_000, "0.05", 40), target{capacity: 500, longCapacity: 400})
	if s.Phase != benchv1.SearchDone || s.CapacityRPS > 400 || s.CapacityRPS < 380 {
		t.Fatalf("%+v", s)
	}
	confirms := 0
	for _, st := range s.Steps {
		if st.Kind == benchv1.StepConfirm {
			confirms++
		}
	}
	if confirms != 6 {
		t.Fatalf("%d confirming trials, want two rounds of 3: %+v", confirms, s.Steps)
	}
}

func TestSearchesThatCannotAnswer(t *testing.T) {
	s, _ := drive(t, searchSpec(8, 1_000_000, "0.05", 12), target{capacity: 0})
	if s.Phase != benchv1.SearchFailed || !strings.Contains(s.Message, "even 1 req/s failed") {
		t.Fatalf("nothing passes: %+v", s)
	}
	s, _ = drive(t, searchSpec(10, 1_000_000, "0.0001", 6), target{capacity: 777})
	if s.Phase != benchv1.SearchDone || s.Confidence != benchv1.ConfidenceLow || !strings.Contains(s.Message, "steps ran out") {
		t.Fatalf("budget: %+v", s)
	}
	// A target without the scenario's endpoints: the first step is skipped, the search says why.
	spec := searchSpec(10, 100, "0.05", 6)
	spec.Targets[0].Preset = "nginx"
	presets := map[string][]string{"nginx": {"health"}}
	planned, err := plan.Build(spec, presets)
	if err != nil || len(planned) != 1 || planned[0].Skip == "" {
		t.Fatalf("%+v %v", planned, err)
	}
	st := &benchv1.BenchmarkRunStatus{Trials: []benchv1.Trial{planned[0].Status()}}
	if Advance(spec, st) != 0 {
		t.Fatal("a skipped search must plan nothing")
	}
	if got := Status(spec, st.Trials); got[0].Phase != benchv1.SearchFailed || !strings.Contains(got[0].Message, "does not implement") {
		t.Fatalf("%+v", got)
	}
}

// For any capacity and start, the answer brackets the capacity within the width, and the
// search stays within the trials the schema's bound counts (maxSteps + 2 x repetitions).
func TestSearchProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for i := 0; i < 300; i++ {
		capacity := int32(1 + rng.IntN(2_000_000))
		start := int32(1 + rng.IntN(5000))
		spec := searchSpec(start, 10_000_000, "0.05", 40)
		s, trials := drive(t, spec, target{capacity: capacity})
		if len(trials) > 40+2*3 {
			t.Fatalf("capacity %d start %d: %d trials", capacity, start, len(trials))
		}
		if s.Phase != benchv1.SearchDone || s.CapacityRPS > capacity || (s.UpperRPS != 0 && s.UpperRPS <= capacity) {
			t.Fatalf("capacity %d start %d: %+v", capacity, start, s)
		}
		if w := int64(s.UpperRPS - s.CapacityRPS); w > 1 && w*20 > int64(s.CapacityRPS) {
			t.Fatalf("capacity %d start %d: [%d, %d) wider than 5%%", capacity, start, s.CapacityRPS, s.UpperRPS)
		}
	}
}

func TestNewsDescribesEachStep(t *testing.T) {
	spec := searchSpec(400, 1_000_000, "0.05", 16)
	planned, _ := plan.Build(spec, nil)
	st := &benchv1.BenchmarkRunStatus{Trials: []benchv1.Trial{planned[0].Status()}}
	tg := target{capacity: 480}
	var lines []string
	for i := 0; i < 50; i++ {
		before := Status(spec, st.Trials)
		for j := range st.Trials {
			if tr := &st.Trials[j]; tr.Phase == benchv1.TrialPending {
				tr.Phase, tr.Result = benchv1.TrialSucceeded, tg.measure(*tr)
			}
		}
		n := Advance(spec, st)
		lines = append(lines, News(before, Status(spec, st.Trials))...)
		if n == 0 {
			break
		}
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"search go/ping: bracket 400/s Pass; next: bracket 800/s", "bracket 800/s Fail (RateShortfall",
		"next: bisect 480/s", "done: 480/s; 504/s failed"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
}

// A queue fills slowly: short trials pass a little above what a full-length window holds.
// Whatever the gap (up to 10%), the full-length repetitions overturn the short answer and
// the search still ends within the width of the sustained capacity, within its budget.
func TestSearchPropertyShortTrialsOptimistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for i := 0; i < 300; i++ {
		long := int32(20 + rng.IntN(100_000))
		short := long + int32(float64(long)*rng.Float64()*0.10)
		spec := searchSpec(int32(1+rng.IntN(200)), 10_000_000, "0.05", 24)
		s, trials := drive(t, spec, target{capacity: short, longCapacity: long})
		if len(trials) > 24+2*3 {
			t.Fatalf("long %d short %d: %d trials", long, short, len(trials))
		}
		if s.Phase != benchv1.SearchDone || s.CapacityRPS > long || float64(s.CapacityRPS) < 0.95*float64(long)-1 {
			t.Fatalf("long %d short %d: %+v", long, short, s)
		}
	}
}

// k6 starved on a busy machine drops iterations with its VUs idle and the target answering
// fast: that step is the generator's. A saturated target keeps every VU busy: its own.
func TestGeneratorFallingBehindIsNotTheTarget(t *testing.T) {
	spec := searchSpec(100, 1_000_000, "0.05", 16)
	vus := int32(200)
	spec.Load.MaxVUs = &vus
	step := func(achievedMil, p90 int64) judged {
		return judge(spec, benchv1.Trial{Target: "go", Scenario: "ping", LoadPoint: 1600, Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 1000, AchievedMilliRPS: achievedMil, P50Micros: p90 / 2, P90Micros: p90, P99Micros: 2 * p90,
				DroppedIterations: 500}})
	}
	if j := step(1_353_000, 3000); j.outcome != benchv1.StepGeneratorLimited || !strings.Contains(j.reason, "k6 fell behind") {
		t.Fatalf("starved k6: %+v", j)
	}
	// 1000/s at 40 ms each: 40 requests in flight of 200 VUs... still the generator's;
	// at 180 ms, 180 of 200: the target's queue holds the VUs.
	if j := step(1_000_000, 40_000); j.outcome != benchv1.StepGeneratorLimited {
		t.Fatalf("40 VUs busy: %+v", j)
	}
	if j := step(1_000_000, 180_000); j.outcome != benchv1.StepFail || !strings.Contains(j.reason, "DroppedIterations") {
		t.Fatalf("VUs exhausted: %+v", j)
	}
	// Past the SLO it is the target's whatever the VUs: p99 2 x 30 ms > 50 ms here.
	spec.SLO.P99 = "50ms"
	if j := step(1_353_000, 30_000); j.outcome != benchv1.StepFail {
		t.Fatalf("SLO missed: %+v", j)
	}
}

// Near its capacity a target flips between passing and failing full-length windows: a
// rate's repetitions are judged together with the full-length step taken at it before
// (here 3 of 5), so the search answers, with less than high confidence.
func TestFullLengthTrialsAtARateCountTogether(t *testing.T) {
	full := 0
	noise := func(rate int32, short bool) bool {
		if short || rate < 250 {
			return false
		}
		full++
		return full%2 == 0 // every other full-length window at 250/s or more stalls
	}
	spec := searchSpec(100, 1_000_000, "0.05", 16)
	spec.Load.Repetitions = 4
	s, _ := drive(t, spec, target{capacity: 300, noise: noise})
	if s.Phase != benchv1.SearchDone || s.Confidence == benchv1.ConfidenceHigh || s.CapacityRPS < 250 || s.CapacityRPS > 300 ||
		2*s.PassedRepetitions <= s.Repetitions || s.Repetitions <= 4 {
		t.Fatalf("%+v", s)
	}
}

// A search that runs out of rounds still answers with the highest rate a full-length trial
// passed below the failures, marked unconfirmed, rather than nothing; with no such rate it
// fails, saying why.
func TestGivingUp(t *testing.T) {
	m := newMachine(configOf(searchSpec(100, 1000, "0.05", 16)))
	m.upper, m.longPasses, m.onlyGenerator = 300, []int32{250, 300, 268}, false
	m.giveUp("full-length repetitions overturned the short trials 2 times")
	cs := benchv1.CapacitySearch{Target: "go"}
	answer(searchSpec(100, 1000, "0.05", 16), m, &cs)
	if !m.done || cs.CapacityRPS != 268 || cs.Confidence != benchv1.ConfidenceLow || !strings.Contains(cs.Message, "not confirmed by repetitions") {
		t.Fatalf("%+v", cs)
	}
	m = newMachine(configOf(searchSpec(100, 1000, "0.05", 16)))
	m.upper, m.longPasses, m.onlyGenerator = 300, []int32{300, 310}, false
	m.giveUp("overturned twice")
	if m.done || m.failed != "overturned twice" {
		t.Fatalf("a pass above the failure is no answer: %+v", m)
	}
}
