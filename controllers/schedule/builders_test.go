package schedule

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// The history keeps the newest HistoryMaxRuns runs in time order, each at most
// HistoryMaxRows rows; a run already held, a failed one or one with no row is not added.
func TestAppendRunsBounds(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var h []historyRun
	for i := range HistoryMaxRuns + 5 {
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%03d", i),
			Annotations: map[string]string{benchv1.AnnotationScheduledAt: base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)}}}
		run.Spec.Load = benchv1.Load{Rates: []int32{100}}
		run.Status.Phase = benchv1.PhaseSucceeded
		for tgt := range HistoryMaxRows + 3 {
			run.Status.Results = append(run.Status.Results, benchv1.ResultRow{Target: fmt.Sprintf("t%02d", tgt), Scenario: "ping", LoadPoint: 100, Repetitions: 1,
				P50Micros: benchv1.Stat{Median: 500}, P99Micros: benchv1.Stat{Median: 900}})
		}
		failed := run.DeepCopy()
		failed.Name, failed.Status.Phase = failed.Name+"-failed", benchv1.PhaseFailed
		empty := run.DeepCopy()
		empty.Name, empty.Status.Results = empty.Name+"-empty", nil
		var changed bool
		// Newest first: the order comes from the scheduled times.
		h, changed = appendRuns(h, []*benchv1.BenchmarkRun{failed, empty, run})
		if !changed {
			t.Fatalf("run %d not added", i)
		}
		if _, again := appendRuns(h, []*benchv1.BenchmarkRun{run}); again {
			t.Fatalf("run %d added twice", i)
		}
	}
	if len(h) != HistoryMaxRuns || h[0].Name != "r005" || h[len(h)-1].Name != fmt.Sprintf("r%03d", HistoryMaxRuns+4) || len(h[0].Rows) != HistoryMaxRows ||
		h[0].Rows[0].Values[history.FigureP50] != 500 {
		t.Fatalf("%d runs, first %s, %d rows", len(h), h[0].Name, len(h[0].Rows))
	}
}

func TestChangedDigestAndImages(t *testing.T) {
	rec := []benchv1.ImageDigest{{Image: "a", Digest: "sha256:1"}, {Image: "b", Digest: "sha256:2"}}
	if d := changedDigest(rec, rec); d != "" {
		t.Fatal(d)
	}
	if d := changedDigest(rec, []benchv1.ImageDigest{{Image: "a", Digest: "sha256:1"}, {Image: "b", Digest: "sha256:3"}}); d != "b moved from sha256:2 to sha256:3" {
		t.Fatal(d)
	}
	if d := changedDigest(rec, []benchv1.ImageDigest{{Image: "c", Digest: "sha256:4"}}); d != "c (new image) at sha256:4" {
		t.Fatal(d)
	}
	tpl := benchv1.BenchmarkRunTemplate{Spec: benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{
		{Name: "x", Image: "z/own:1"}, {Name: "y", Preset: "go-nethttp"}, {Name: "w", Preset: "go-nethttp"}}}}
	images, err := templateImages(tpl, map[string]string{"go-nethttp": "ghcr.io/go:1"})
	if err != nil || len(images) != 2 || images[0] != "ghcr.io/go:1" || images[1] != "z/own:1" {
		t.Fatalf("%v %v", images, err)
	}
	if _, err := templateImages(tpl, nil); err == nil {
		t.Fatal("a preset with no configured image resolved")
	}
	a := templateHash(tpl)
	tpl.Spec.Targets[0].Image = "z/own:2"
	if a == templateHash(tpl) || len(a) != 32 {
		t.Fatalf("%s", a)
	}
}

// A run with no valid row is never the next run's baseline: every later verdict would be
// read against figures it could not stand behind.
func TestInconclusiveRunIsNoBaseline(t *testing.T) {
	run := func(name string, conclusive metav1.ConditionStatus) *benchv1.BenchmarkRun {
		r := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Status.Phase = benchv1.PhaseSucceeded
		r.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionConclusive, Status: conclusive, Reason: "R"}}
		return r
	}
	runs := []*benchv1.BenchmarkRun{run("good", metav1.ConditionTrue), run("no-valid-row", metav1.ConditionFalse)}
	if got := lastGoodRun(runs, nil); got != "good" {
		t.Errorf("last good run %q, want good", got)
	}
}

// An accepted run is a baseline although it Regressed; one the history limits deleted is
// stood in for by the oldest succeeded run after it, not by a newer one (a later slowdown
// is not accepted with it).
func TestAcceptedRunIsABaseline(t *testing.T) {
	at := func(name string, minute int64, regressed bool) *benchv1.BenchmarkRun {
		r := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{benchv1.AnnotationScheduledAt: time.Unix(minute*60, 0).UTC().Format(time.RFC3339)}}}
		r.Status.Phase = benchv1.PhaseSucceeded
		status := metav1.ConditionFalse
		if regressed {
			status = metav1.ConditionTrue
		}
		r.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionRegressed, Status: status, Reason: "R"}}
		return r
	}
	runs := []*benchv1.BenchmarkRun{at("s-100", 100, false), at("s-200", 200, true), at("s-300", 300, true), at("s-400", 400, true)}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	if got := lastGoodRun(runs, accepted(s, runs)); got != "s-100" {
		t.Errorf("nothing accepted: %s", got)
	}
	s.Spec.Triage = []benchv1.ScheduleTriage{{Run: "s-200", Action: benchv1.TriageAcknowledge}}
	if got := lastGoodRun(runs, accepted(s, runs)); got != "s-100" {
		t.Errorf("acknowledged only: %s", got)
	}
	s.Spec.Triage[0].Action = benchv1.TriageAccept
	if got := lastGoodRun(runs, accepted(s, runs)); got != "s-200" {
		t.Errorf("accepted: %s", got)
	}
	s.Spec.Triage[0].Run = "s-250" // deleted by the history limits
	if got := lastGoodRun(runs, accepted(s, runs)); got != "s-300" {
		t.Errorf("accepted, since deleted: %s", got)
	}
}
