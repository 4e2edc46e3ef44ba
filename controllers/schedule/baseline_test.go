package schedule

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A scheduled run is compared with the last good run only when its repetitions can reach a
// verdict (the API server refuses a comparison under 4); a template's same-run pairs keep its
// metric before there is a last good run.
func TestScheduledRunBaseline(t *testing.T) {
	at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	sched := func(reps int32, pair bool, b *benchv1.Baseline) *benchv1.BenchmarkSchedule {
		s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ns"}}
		s.Spec.Template.Spec = benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "v1", Preset: "go-nethttp"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{200}, Repetitions: reps},
			Baseline:  b,
		}
		if pair {
			s.Spec.Template.Spec.Targets = append(s.Spec.Template.Spec.Targets, benchv1.Target{Name: "v2", Preset: "go-nethttp", BaselineTarget: "v1"})
		}
		return s
	}
	if b := newScheduledRun(sched(5, false, nil), at, "good").Spec.Baseline; b == nil || b.Run != "good" {
		t.Fatalf("5 repetitions: baseline %+v, want the last good run", b)
	}
	if b := newScheduledRun(sched(1, false, nil), at, "good").Spec.Baseline; b != nil {
		t.Fatalf("1 repetition: baseline %+v, want none (no verdict is reachable)", b)
	}
	if b := newScheduledRun(sched(0, false, nil), at, "good").Spec.Baseline; b != nil {
		t.Fatalf("the default 3 repetitions: baseline %+v, want none", b)
	}
	metric := &benchv1.Baseline{Run: "last-good", Metric: "p99", MinEffect: "0.02"}
	if b := newScheduledRun(sched(5, true, metric), at, "").Spec.Baseline; b == nil || b.Run != "" || b.Metric != "p99" {
		t.Fatalf("pairs before any good run: baseline %+v, want the template's metric and no run", b)
	}
	if b := newScheduledRun(sched(5, false, metric), at, "").Spec.Baseline; b != nil {
		t.Fatalf("no pair, no good run: baseline %+v, want none", b)
	}
}

// A step that starts where the machines changed is flagged with the change and makes
// Regressing Unknown, not True; a step on the same machines still alerts.
func TestEnvironmentChangeIsNotARegression(t *testing.T) {
	env := func(cpu string) *benchv1.Environment {
		return &benchv1.Environment{Mode: "Cluster", Nodes: []benchv1.NodeFingerprint{{Name: "n", Role: "Targets", InstanceType: "c7g.xlarge", CPUModel: cpu, CPUs: 4}}}
	}
	var runs []*benchv1.BenchmarkRun
	for i, cpu := range []string{"V1", "V1", "V2"} {
		r := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d", i),
			Annotations: map[string]string{benchv1.AnnotationScheduledAt: time.Date(2026, 11, 20+i, 3, 0, 0, 0, time.UTC).Format(time.RFC3339)}}}
		r.Spec.Load.Rates = []int32{200}
		r.Status.Phase, r.Status.Environment = benchv1.PhaseSucceeded, env(cpu)
		r.Status.Results = []benchv1.ResultRow{{Target: "go", Scenario: "ping", LoadPoint: 200, Repetitions: 1, Valid: true,
			LatencySource: benchv1.LatencyGenerator, P50Micros: benchv1.Stat{Median: 100}, P99Micros: benchv1.Stat{Median: 300}}}
		runs = append(runs, r)
	}
	h, changed := appendRuns(nil, runs)
	if !changed || len(h) != 3 || h[0].Env == "" {
		t.Fatalf("history %+v", h)
	}
	if got := environmentChange(h, 1); got != "" {
		t.Fatalf("same machines: %q", got)
	}
	if got := environmentChange(h, 2); !strings.Contains(got, "V1") || !strings.Contains(got, "→") || !strings.Contains(got, "V2") {
		t.Fatalf("new CPU model: %q", got)
	}
	s := &benchv1.BenchmarkSchedule{}
	s.Status.Alerts = []benchv1.ScheduleChangePoint{{Target: "go", Scenario: "ping", LoadPoint: 200, Figure: "p50", Run: "r2", ChangePPM: 200_000,
		EnvironmentChanged: environmentChange(h, 2)}}
	setRegressing(s)
	if c := meta.FindStatusCondition(s.Status.Conditions, benchv1.ConditionRegressing); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonEnvironmentChanged {
		t.Fatalf("a step where the machines changed: %+v", c)
	}
	s.Status.Alerts = append(s.Status.Alerts, benchv1.ScheduleChangePoint{Target: "go", Scenario: "ping", LoadPoint: 200, Figure: "p99", Run: "r1", ChangePPM: 200_000})
	setRegressing(s)
	if c := meta.FindStatusCondition(s.Status.Conditions, benchv1.ConditionRegressing); c.Status != metav1.ConditionTrue {
		t.Fatalf("a step on the same machines beside it: %+v", c)
	}
}
