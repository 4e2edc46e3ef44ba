package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// modelMeasurer answers a trial's figures from a model of the target instead of Prometheus:
// it finds the trial by its TestRun (the query's test id) in the namespace's runs.
type modelMeasurer struct {
	c      client.Client
	ns     string
	figure func(run *benchv1.BenchmarkRun, t benchv1.Trial) benchv1.Measurement
}

func (m modelMeasurer) Measure(ctx context.Context, q metrics.TrialQuery, _ time.Time) (benchv1.Measurement, string, error) {
	runs := &benchv1.BenchmarkRunList{}
	if err := m.c.List(ctx, runs, client.InNamespace(m.ns)); err != nil {
		return benchv1.Measurement{}, "", err
	}
	for i := range runs.Items {
		for _, t := range runs.Items[i].Status.Trials {
			if specs.TestID(&runs.Items[i], t.Name) == q.TestID {
				return m.figure(&runs.Items[i], t), "", nil
			}
		}
	}
	return benchv1.Measurement{}, "", nil
}

// startNamespace creates a namespace and a manager serving it with the given measurer.
func startNamespace(t *testing.T, ns string, figure func(*benchv1.BenchmarkRun, benchv1.Trial) benchv1.Measurement) {
	t.Helper()
	if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Metrics = modelMeasurer{c: env.Client, ns: ns, figure: figure}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
}

// p50Model is a target whose p50 per repetition comes from a table by run name; the rate
// is always kept.
func p50Model(p50s map[string][]int64) func(*benchv1.BenchmarkRun, benchv1.Trial) benchv1.Measurement {
	return func(run *benchv1.BenchmarkRun, t benchv1.Trial) benchv1.Measurement {
		v := p50s[run.Name][t.Repetition-1]
		return benchv1.Measurement{Requests: int64(t.LoadPoint), AchievedMilliRPS: int64(t.LoadPoint) * 1000,
			P50Micros: v, P90Micros: 2 * v, P95Micros: 2 * v, P99Micros: 3 * v, P999Micros: 4 * v, MaxMicros: 5 * v}
	}
}

// The same object through the reconciler: an unchanged run is NoChange against its
// baseline and Regressed False; one 25% slower is Slower and Regressed True; a baseline that
// does not exist leaves Regressed Unknown without failing the run.
func TestBaselineVerdictThroughTheReconciler(t *testing.T) {
	testenv.Long(t)
	ns := "baseline"
	startNamespace(t, ns, p50Model(map[string][]int64{
		"before": {1000, 1012, 994, 1006},
		"same":   {1004, 998, 1010, 1001},
		"slower": {1250, 1262, 1244, 1256},
		"orphan": {1000, 1000, 1000, 1000},
	}))
	mk := func(name, baseline string) *benchv1.BenchmarkRun {
		run := pingRun(name)
		run.Namespace = ns
		run.Spec.Load.Repetitions = 4
		if baseline != "" {
			run.Spec.Baseline = &benchv1.Baseline{Run: baseline}
		}
		fakes.script(name, &k6Outcome{})
		if err := env.Client.Create(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		return run
	}
	done := func(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
		return waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
	}
	before := done(mk("before", ""))
	if before.Status.Phase != benchv1.PhaseSucceeded || meta.FindStatusCondition(before.Status.Conditions, benchv1.ConditionRegressed) != nil {
		t.Fatalf("baseline run: phase %s, conditions %+v", before.Status.Phase, before.Status.Conditions)
	}
	same, slower, orphan := mk("same", "before"), mk("slower", "before"), mk("orphan", "never-ran")
	for _, c := range []struct {
		run     *benchv1.BenchmarkRun
		verdict benchv1.RegressionVerdict
		status  metav1.ConditionStatus
		reason  string
	}{
		{same, benchv1.VerdictNoChange, metav1.ConditionFalse, "NoRegression"},
		{slower, benchv1.VerdictSlower, metav1.ConditionTrue, "Slower"},
		{orphan, "", metav1.ConditionUnknown, "BaselineUnavailable"},
	} {
		got := done(c.run)
		if got.Status.Phase != benchv1.PhaseSucceeded {
			t.Fatalf("%s: phase %s", got.Name, got.Status.Phase)
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressed)
		if cond == nil || cond.Status != c.status || cond.Reason != c.reason {
			t.Fatalf("%s: Regressed %+v", got.Name, cond)
		}
		row := got.Status.Results[0]
		if c.verdict == "" {
			if row.Baseline != nil || !strings.Contains(cond.Message, `no BenchmarkRun "never-ran"`) {
				t.Fatalf("%s: %+v / %s", got.Name, row.Baseline, cond.Message)
			}
			continue
		}
		if row.Baseline == nil || row.Baseline.Verdict != c.verdict || row.Baseline.BaselineRepetitions != 4 || row.Baseline.BaselineMicros != 1000 {
			t.Fatalf("%s: row comparison %+v", got.Name, row.Baseline)
		}
		if ref := got.Status.Baseline; ref == nil || ref.Source != ns+"/before" || ref.Metric != "p50" || ref.MinEffect != "0.05" {
			t.Fatalf("%s: status.baseline %+v", got.Name, ref)
		}
		// Later passes re-aggregate the rows; the verdict stays.
		time.Sleep(500 * time.Millisecond)
		again := &benchv1.BenchmarkRun{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(got), again); err != nil || again.Status.Results[0].Baseline == nil {
			t.Fatalf("%s: the verdict did not survive a later pass: %v", got.Name, err)
		}
		t.Logf("%s: %s %dppm p=%s; %s", got.Name, row.Baseline.Verdict, row.Baseline.ShiftPPM, row.Baseline.PValue, cond.Message)
	}
	// The comparison is an event, a warning when it regressed.
	events := &eventsv1.EventList{}
	if err := env.Client.List(context.Background(), events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range events.Items {
		seen[e.Regarding.Name+"/"+e.Type+"/"+e.Reason] = true
	}
	for _, want := range []string{"same/Normal/BaselineCompared", "slower/Warning/Regressed", "orphan/Warning/BaselineUnavailable"} {
		if !seen[want] {
			t.Errorf("no event %s; events: %v", want, seen)
		}
	}
}

// A candidate and its baseline target in one run: the verdict, with its shift and interval,
// lands in the candidate's row, status.verdict (kubectl get br -o wide) and Regressed, with
// no baseline run; the rounds' order is drawn from a seed the status keeps, and the spec's
// seed replays it.
func TestSameRunPairThroughTheReconciler(t *testing.T) {
	testenv.Long(t)
	ns := "same-run"
	p50 := map[string][]int64{"v1": {1000, 1012, 994, 1006, 1003}, "v2": {1100, 1110, 1093, 1106, 1102}}
	startNamespace(t, ns, func(_ *benchv1.BenchmarkRun, tr benchv1.Trial) benchv1.Measurement {
		v := p50[tr.Target][tr.Repetition-1]
		return benchv1.Measurement{Requests: int64(tr.LoadPoint), AchievedMilliRPS: int64(tr.LoadPoint) * 1000,
			P50Micros: v, P90Micros: 2 * v, P95Micros: 2 * v, P99Micros: 3 * v, P999Micros: 4 * v, MaxMicros: 5 * v}
	})
	// The node both arms run on, as its kubelet reports it.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pair-node", Labels: map[string]string{corev1.LabelInstanceTypeStable: "c7g.xlarge"}}}
	if err := env.Client.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	node.Status.NodeInfo = corev1.NodeSystemInfo{Architecture: "arm64", KernelVersion: "6.1.0-41-cloud-arm64", ContainerRuntimeVersion: "containerd://2.1.4", KubeletVersion: "v1.37.2"}
	node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	if err := env.Client.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, seed *int32, pairing ...benchv1.Pairing) *benchv1.BenchmarkRun {
		run := pingRun(name)
		run.Namespace = ns
		run.Spec.Targets = []benchv1.Target{{Name: "v1", Preset: "go-nethttp"}, {Name: "v2", Preset: "go-nethttp", BaselineTarget: "v1"}}
		run.Spec.Load.Repetitions, run.Spec.Load.OrderSeed = 5, seed
		if len(pairing) > 0 {
			run.Spec.Load.Pairing = pairing[0]
		}
		for i, tg := range []string{"v1", "v2"} {
			fakes.depPods[ns+"/"+specs.TargetName(run, tg)] = podPlace{"pair-node", fmt.Sprintf("10.9.0.%d", i+1)}
		}
		fakes.script(name, &k6Outcome{})
		if err := env.Client.Create(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		return waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
	}
	got := mk("ab", nil)
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.OrderSeed < 1 {
		t.Fatalf("phase %s, order seed %d", got.Status.Phase, got.Status.OrderSeed)
	}
	var row *benchv1.ResultRow
	for i := range got.Status.Results {
		if got.Status.Results[i].Target == "v2" {
			row = &got.Status.Results[i]
		} else if got.Status.Results[i].Baseline != nil {
			t.Fatalf("the baseline target was judged: %+v", got.Status.Results[i].Baseline)
		}
	}
	if c := row.Baseline; c == nil || c.Verdict != benchv1.VerdictSlower || c.BaselineTarget != "v1" || c.ShiftLowPPM == nil || c.MinDetectablePPM == nil {
		t.Fatalf("v2's comparison: %+v", row.Baseline)
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressed)
	if cond == nil || cond.Status != metav1.ConditionTrue || !strings.HasPrefix(got.Status.Verdict, "v2/ping@100 vs v1: Slower +") {
		t.Fatalf("Regressed %+v, verdict %q", cond, got.Status.Verdict)
	}
	if ref := got.Status.Baseline; ref == nil || ref.Run != "" || ref.Pairs != "v2 vs v1" {
		t.Fatalf("status.baseline %+v", ref)
	}
	// What it ran on: the one node both arms shared, from the kubelet's report.
	if e := got.Status.Environment; e == nil || len(e.Nodes) != 1 || e.Nodes[0].Name != "pair-node" || e.Nodes[0].InstanceType != "c7g.xlarge" ||
		e.Nodes[0].Kernel != "6.1.0-41-cloud-arm64" || e.Nodes[0].CPUs != 4 || e.Nodes[0].Role != "Targets" || len(e.Images) != 2 {
		t.Fatalf("status.environment %+v", e)
	}
	order := func(r *benchv1.BenchmarkRun) (out []string) {
		for _, tr := range r.Status.Trials {
			out = append(out, tr.Name)
		}
		return out
	}
	replay := mk("ab-replay", &got.Status.OrderSeed)
	if !slices.Equal(order(got), order(replay)) || replay.Status.OrderSeed != got.Status.OrderSeed {
		t.Fatalf("seed %d replayed as %d: %v, then %v", got.Status.OrderSeed, replay.Status.OrderSeed, order(got), order(replay))
	}
	// A duet: each round's two arms load at the same time (their windows overlap), each
	// recorded as a trial of its own that names the other, and judged as the pair was.
	duet := mk("ab-duet", nil, benchv1.PairingDuet)
	if duet.Status.Phase != benchv1.PhaseSucceeded || !strings.HasPrefix(duet.Status.Verdict, "v2/ping@100 vs v1: Slower +") {
		t.Fatalf("duet: phase %s, verdict %q", duet.Status.Phase, duet.Status.Verdict)
	}
	byRound := map[int32][]benchv1.Trial{}
	for _, tr := range duet.Status.Trials {
		if !tr.Calibration {
			byRound[tr.Repetition] = append(byRound[tr.Repetition], tr)
		}
	}
	for rep, arms := range byRound {
		a, b := arms[0], arms[1]
		if len(arms) != 2 || a.MeasureStart == nil || b.MeasureStart == nil ||
			a.MeasureStart.After(b.MeasureEnd.Time) || b.MeasureStart.After(a.MeasureEnd.Time) || // status keeps seconds
			!strings.HasPrefix(a.Message, "duet: loaded at the same time as "+b.Name) { // first: messages are clipped
			t.Fatalf("round %d: the arms did not load together: %+v", rep, arms)
		}
	}
	events := &eventsv1.EventList{}
	if err := env.Client.List(context.Background(), events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Regarding.Name == "ab" && e.Reason == benchv1.ReasonRegressed && e.Type == "Warning" {
			return
		}
	}
	t.Error("no Regressed warning event for ab")
}
