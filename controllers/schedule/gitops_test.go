package schedule

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// scheduleCase is a schedule as the operator leaves it, and the health Argo CD must read
// from it with charts/gauntlet/argocd-health-schedule.lua (test/argocd runs the script).
type scheduleCase struct {
	name string
	argo string
	edit func(*benchv1.BenchmarkSchedule)
}

func scheduleCases() []scheduleCase {
	return []scheduleCase{
		{"scheduled", "Healthy", func(s *benchv1.BenchmarkSchedule) {
			s.Status.LastGoodRun = "nightly-29443680"
			setScheduleConditions(s, true, ReasonScheduled, "next run at 2026-01-02T03:00:00Z")
		}},
		{"regressing", "Healthy", func(s *benchv1.BenchmarkSchedule) {
			s.Status.LastGoodRun = "nightly-29443680"
			at := metav1.NewTime(time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC))
			s.Status.HistoryRuns = 12
			s.Status.ChangePoints = []benchv1.ScheduleChangePoint{{Target: "go", Scenario: "ping", LoadPoint: 200, Figure: "p50",
				Run: "nightly-29443680", RunTime: &at, Direction: "Slower", Before: 500, After: 600, ChangePPM: 200_000,
				MagnitudePPM: 200_000, PValue: "0.0020", Recent: true, DetectedAt: at}}
			s.Status.Alerts = s.Status.ChangePoints
			setScheduleConditions(s, true, ReasonScheduled, "next run at 2026-01-02T03:00:00Z")
			setRegressing(s)
		}},
		{"scheduled-no-good-run", "Healthy", func(s *benchv1.BenchmarkSchedule) {
			setScheduleConditions(s, true, ReasonScheduled, "next run at 2026-01-02T03:00:00Z")
		}},
		{"suspended", "Suspended", func(s *benchv1.BenchmarkSchedule) {
			s.Spec.Suspend = true
			setScheduleConditions(s, true, ReasonSuspended, "spec.suspend is true: no new runs")
		}},
		{"invalid-schedule", "Degraded", func(s *benchv1.BenchmarkSchedule) {
			s.Spec.Schedule = "every tuesday"
			_, err := cron.ParseStandard(s.Spec.Schedule)
			setScheduleConditions(s, false, ReasonInvalidSchedule, fmt.Sprintf("spec.schedule %q: %v", s.Spec.Schedule, err))
		}},
		{"stale-generation", "Progressing", func(s *benchv1.BenchmarkSchedule) {
			setScheduleConditions(s, true, ReasonScheduled, "next run at 2026-01-02T03:00:00Z")
			s.Generation = 3
		}},
	}
}

// gitOpsSchedule is the case's schedule with fixed times, as unstructured data.
func gitOpsSchedule(t *testing.T, c scheduleCase) map[string]any {
	t.Helper()
	s := &benchv1.BenchmarkSchedule{
		TypeMeta:   metav1.TypeMeta{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkSchedule"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "default", Generation: 2},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 3 * * *", Template: benchv1.BenchmarkRunTemplate{Spec: benchv1.BenchmarkRunSpec{
			Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}}, Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load: benchv1.Load{Rates: []int32{200}}}}},
	}
	s.Status.ObservedGeneration = 2
	c.edit(s)
	at := metav1.NewTime(time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC))
	for i := range s.Status.Conditions {
		s.Status.Conditions[i].LastTransitionTime = at
		s.Status.Conditions[i].ObservedGeneration = s.Status.ObservedGeneration
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		t.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"test.gauntlet.dev/argocd-health": c.argo}
	delete(meta, "creationTimestamp")
	return obj
}

// The fixtures test/argocd reads are these cases as the code writes them; a change here
// without regenerating them fails.
func TestArgoCDScheduleFixturesAreCurrent(t *testing.T) {
	dir := filepath.Join(testenv.Root(), "test", "argocd", "testdata", "schedules")
	for _, c := range scheduleCases() {
		want, err := yaml.Marshal(gitOpsSchedule(t, c))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, c.name+".yaml")
		if os.Getenv("GAUNTLET_UPDATE_FIXTURES") == "1" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale or missing (%v): run GAUNTLET_UPDATE_FIXTURES=1 go test ./controllers/schedule -run TestArgoCDScheduleFixturesAreCurrent", file, err)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(entries) != len(scheduleCases()) {
		t.Errorf("%s holds %d files, want %d: remove the stale ones", dir, len(entries), len(scheduleCases()))
	}
}
