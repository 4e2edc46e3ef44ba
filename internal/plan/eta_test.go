package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestEstimatedFinish(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	spec := &benchv1.BenchmarkRunSpec{Load: benchv1.Load{
		Warmup: "30s", Duration: "2m", Search: &benchv1.Search{StepWarmup: "5s", StepDuration: "10s"},
	}}
	overhead := 20 * time.Second
	end := metav1.NewTime(now.Add(45 * time.Second))
	trials := []benchv1.Trial{
		{Name: "done", Phase: benchv1.TrialSucceeded},
		{Name: "failed", Phase: benchv1.TrialFailed},
		{Name: "skipped", Phase: benchv1.TrialSkipped},
		{Name: "running", Phase: benchv1.TrialRunning, MeasureEnd: &end}, // 45 s of window left + overhead
		{Name: "pending", Phase: benchv1.TrialPending},                   // 30 s + 2 min + overhead
		{Name: "step", Phase: benchv1.TrialPending, Short: true},         // 5 s + 10 s + overhead
	}
	got := EstimatedFinish(spec, trials, now, overhead)
	want := now.Add(45*time.Second + 20*time.Second + 150*time.Second + 20*time.Second + 15*time.Second + 20*time.Second)
	if got == nil || !got.Equal(want) {
		t.Fatalf("EstimatedFinish = %v, want %v (270 s from now)", got, want)
	}

	// A running trial past its window's end only has its overhead left.
	late := metav1.NewTime(now.Add(-time.Minute))
	got = EstimatedFinish(spec, []benchv1.Trial{{Phase: benchv1.TrialRunning, MeasureEnd: &late}}, now, overhead)
	if got == nil || !got.Equal(now.Add(overhead)) {
		t.Errorf("a trial past its window: %v, want now + overhead", got)
	}
	// A running trial not yet measuring has its whole window left.
	got = EstimatedFinish(spec, []benchv1.Trial{{Phase: benchv1.TrialRunning}}, now, overhead)
	if got == nil || !got.Equal(now.Add(150*time.Second+overhead)) {
		t.Errorf("a trial just started: %v, want now + 2m30s + overhead", got)
	}
	if got := EstimatedFinish(spec, trials[:3], now, overhead); got != nil {
		t.Errorf("every trial finished: %v, want nil", got)
	}
}

func TestReviseEstimate(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	near, far, early := at.Add(59*time.Second), at.Add(2*time.Minute), at.Add(-90*time.Second)
	for _, c := range []struct {
		name      string
		old, next *time.Time
		want      *time.Time
	}{
		{"first estimate", nil, &at, &at},
		{"within a minute: kept", &at, &near, &at},
		{"two minutes later: replaced", &at, &far, &far},
		{"90 s earlier: replaced", &at, &early, &early},
		{"nothing left", &at, nil, nil},
	} {
		if got := ReviseEstimate(c.old, c.next); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
