package schedule

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// startAnalyzer runs a until the test ends.
func startAnalyzer(t *testing.T, a *Analyzer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// awaitAnalysis waits for the analyzer's event naming the schedule.
func awaitAnalysis(t *testing.T, a *Analyzer, key types.NamespacedName, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case e := <-a.Events():
			if e.Object.GetName() == key.Name && e.Object.GetNamespace() == key.Namespace {
				return
			}
		case <-deadline:
			t.Fatalf("no analysis of %s ended within %s", key, within)
		}
	}
}

// A schedule whose analysis takes long (an injected analysis that waits to be released)
// holds neither its own pass nor another schedule's: both return at once, the other's
// analysis lands meanwhile, and the slow one's change point lands in the status, with its
// event, on the pass after it ends.
func TestSlowAnalysisHoldsNoPass(t *testing.T) {
	release := make(chan struct{})
	a := &Analyzer{Workers: 2, Analyze: func(h []historyRun, triage []benchv1.ScheduleTriage) (*history.Report, error) {
		if len(h) > 0 && strings.HasPrefix(h[0].Name, "slow") {
			<-release
			// A found change point, so what lands in the status is this analysis's.
			return &history.Report{Series: []history.Series{{Key: h[0].Rows[0].Key, Figure: history.FigureP50,
				ChangePoints: []history.Change{{Run: 0, RunName: h[0].Name, Before: 500, After: 600, ChangePercent: 20,
					Magnitude: 0.2, PValue: 0.001, Direction: history.Slower, Recent: true}}}}}, nil
		}
		return analyzeHistory(h, triage)
	}}
	startAnalyzer(t, a)
	var hs []*harness
	for _, name := range []string{"slow", "quick"} {
		s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", Template: pingTemplate()}}
		h := newHarness(t, s)
		h.r.Analyzer = a
		at := s.CreationTimestamp.Truncate(time.Hour).Add(time.Hour)
		h.clock.SetTime(at.Add(time.Minute))
		h.reconcile()
		h.measure(fmt.Sprintf("%s-%d", name, at.Unix()/60), 0, 500)
		hs = append(hs, h)
	}
	slow, quick := hs[0], hs[1]
	for _, h := range []*harness{slow, quick} {
		start := time.Now()
		got := h.reconcile()
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("%s: the pass took %s with an analysis running", h.key.Name, took)
		}
		if got.Status.HistoryRuns != 0 {
			t.Fatalf("%s: %d history runs before any analysis ended", h.key.Name, got.Status.HistoryRuns)
		}
	}
	// The quick one's analysis ends while the slow one's still runs.
	awaitAnalysis(t, a, quick.key, 30*time.Second)
	if got := quick.reconcile(); got.Status.HistoryRuns != 1 {
		t.Fatalf("quick: %d history runs after its analysis", got.Status.HistoryRuns)
	}
	if got := slow.reconcile(); got.Status.HistoryRuns != 0 || len(got.Status.ChangePoints) != 0 {
		t.Fatalf("slow: %+v before its analysis ended", got.Status)
	}
	close(release)
	awaitAnalysis(t, a, slow.key, 30*time.Second)
	got := slow.reconcile()
	if got.Status.HistoryRuns != 1 || len(got.Status.ChangePoints) != 1 || got.Status.ChangePoints[0].ChangePPM != 200_000 {
		t.Fatalf("slow, after its analysis: %d runs, change points %+v", got.Status.HistoryRuns, got.Status.ChangePoints)
	}
	if reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing); reg == nil || reg.Status != metav1.ConditionFalse {
		t.Fatalf("Regressing %+v", reg)
	}
	found := false
	for _, e := range slow.drainEvents() {
		found = found || strings.Contains(e, "change point: go/ping@200 p50 Slower +20")
	}
	if !found {
		t.Fatal("no ChangePoint event for the slow analysis's change point")
	}
}
