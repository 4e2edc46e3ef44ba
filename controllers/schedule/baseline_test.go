package schedule

import (
	"testing"
	"time"

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
