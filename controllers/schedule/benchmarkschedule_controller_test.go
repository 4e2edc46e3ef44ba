package schedule

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

var env *testenv.Env

// TestMain starts a real API server with the project's CRDs; the reconciler is called
// directly, with a fake clock, so each scheduled time is a step of the test. Not with
// -short (the unit tier starts no process): the tests that need it call testenv.Long.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctrl.SetLogger(logr.Discard())
	var err error
	if env, err = testenv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

type harness struct {
	t      *testing.T
	r      *BenchmarkScheduleReconciler
	clock  *clocktesting.FakeClock
	events *events.FakeRecorder
	key    types.NamespacedName
}

func (h *harness) reconcile() *benchv1.BenchmarkSchedule {
	h.t.Helper()
	if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key}); err != nil {
		h.t.Fatal(err)
	}
	s := &benchv1.BenchmarkSchedule{}
	if err := env.Client.Get(context.Background(), h.key, s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) runs() []benchv1.BenchmarkRun {
	h.t.Helper()
	list := &benchv1.BenchmarkRunList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(h.key.Namespace), client.MatchingLabels{benchv1.LabelSchedule: h.key.Name}); err != nil {
		h.t.Fatal(err)
	}
	items := list.Items
	slices.SortFunc(items, func(a, b benchv1.BenchmarkRun) int { return strings.Compare(a.Name, b.Name) })
	return items
}

// finish marks a run Succeeded (regressed: its Regressed condition True) or Failed.
func (h *harness) finish(name string, phase benchv1.Phase, regressed bool) {
	h.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: h.key.Namespace, Name: name}, run); err != nil {
		h.t.Fatal(err)
	}
	run.Status.Phase = phase
	status := metav1.ConditionFalse
	if regressed {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: status, Reason: "Test"})
	if err := env.Client.Status().Update(context.Background(), run); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// kstatus is what Flux reads from the schedule.
func kstatus(t *testing.T, s *benchv1.BenchmarkSchedule) status.Status {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

func names(runs []benchv1.BenchmarkRun) []string {
	out := []string{}
	for _, r := range runs {
		out = append(out, r.Name)
	}
	return out
}

func TestScheduleRunsBaselinesAndPrunes(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", SuccessfulRunsHistoryLimit: ptr.To[int32](2),
			Template: benchv1.BenchmarkRunTemplate{Labels: map[string]string{"team": "web"}, Spec: benchv1.BenchmarkRunSpec{
				Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
				Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
				Load:      benchv1.Load{Rates: []int32{200}, Repetitions: 5},
				Baseline:  &benchv1.Baseline{Run: "placeholder", Metric: "p99"},
			}}}}
	if err := env.Client.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	created := s.CreationTimestamp.Time
	hour := created.Truncate(time.Hour).Add(time.Hour) // the first scheduled time after creation
	h := &harness{t: t, clock: clocktesting.NewFakeClock(created.Add(time.Second)), events: events.NewFakeRecorder(100),
		key: client.ObjectKeyFromObject(s)}
	h.r = &BenchmarkScheduleReconciler{Client: env.Client, Recorder: h.events, Clock: h.clock}
	runName := func(at time.Time) string { return fmt.Sprintf("nightly-%d", at.Unix()/60) }

	// Before the first time: nothing, the next time recorded, Ready.
	got := h.reconcile()
	if len(h.runs()) != 0 || !got.Status.NextScheduleTime.Time.Equal(hour) || !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionReady) {
		t.Fatalf("%+v", got.Status)
	}
	if ks := kstatus(t, got); ks != status.CurrentStatus {
		t.Fatalf("kstatus %s", ks)
	}

	// The first time: one run, the template's, with no baseline yet; a second pass at the
	// same time makes no other.
	h.clock.SetTime(hour.Add(time.Minute))
	h.reconcile()
	got = h.reconcile()
	runs := h.runs()
	if len(runs) != 1 || runs[0].Name != runName(hour) || runs[0].Spec.Baseline != nil || runs[0].Labels["team"] != "web" ||
		!metav1.IsControlledBy(&runs[0], got) || !got.Status.LastScheduleTime.Time.Equal(hour) {
		t.Fatalf("runs %+v, status %+v", runs, got.Status)
	}
	if ev := h.drainEvents(); len(ev) != 1 || !strings.Contains(ev[0], "without a baseline") {
		t.Fatalf("%v", ev)
	}

	// An hour later the run is still going: Forbid skips the time.
	h.clock.SetTime(hour.Add(time.Hour + time.Minute))
	got = h.reconcile()
	if len(h.runs()) != 1 || !got.Status.LastScheduleTime.Time.Equal(hour.Add(time.Hour)) {
		t.Fatalf("%v %+v", names(h.runs()), got.Status)
	}
	if ev := h.drainEvents(); len(ev) != 1 || !strings.Contains(ev[0], "still in progress") {
		t.Fatalf("%v", ev)
	}

	// It succeeds: the next run is compared with it, on the template's metric.
	first := runName(hour)
	h.finish(first, benchv1.PhaseSucceeded, false)
	t2 := hour.Add(2 * time.Hour)
	h.clock.SetTime(t2.Add(time.Minute))
	got = h.reconcile()
	runs = h.runs()
	if len(runs) != 2 || runs[1].Spec.Baseline == nil || runs[1].Spec.Baseline.Run != first || runs[1].Spec.Baseline.Metric != "p99" || got.Status.LastGoodRun != first {
		t.Fatalf("%+v", runs)
	}

	// The second regresses: the third is still compared with the first.
	h.finish(runName(t2), benchv1.PhaseSucceeded, true)
	t3 := hour.Add(3 * time.Hour)
	h.clock.SetTime(t3.Add(time.Minute))
	got = h.reconcile()
	runs = h.runs()
	if len(runs) != 3 || runs[2].Spec.Baseline.Run != first || got.Status.LastGoodRun != first {
		t.Fatalf("%v, last good %s", names(runs), got.Status.LastGoodRun)
	}
	if len(got.Status.Runs) != 3 || got.Status.Runs[1].Regressed != metav1.ConditionTrue || got.Status.Runs[0].Regressed != metav1.ConditionFalse ||
		got.Status.Runs[2].Baseline != first || got.Status.Runs[0].Phase != benchv1.PhaseSucceeded {
		t.Fatalf("%+v", got.Status.Runs)
	}

	// The third succeeds and becomes the baseline; the fourth is created; with at most 2
	// succeeded runs kept, the oldest (the first, no longer the baseline) goes.
	h.finish(runName(t3), benchv1.PhaseSucceeded, false)
	t4 := hour.Add(4 * time.Hour)
	h.clock.SetTime(t4.Add(time.Minute))
	got = h.reconcile()
	if want := []string{runName(t2), runName(t3), runName(t4)}; !slices.Equal(names(h.runs()), want) {
		t.Fatalf("%v, want %v", names(h.runs()), want)
	}
	if got.Status.LastGoodRun != runName(t3) || h.runs()[2].Spec.Baseline.Run != runName(t3) {
		t.Fatalf("%+v", got.Status)
	}

	// Suspended: no run at the next time, said in Ready.
	h.finish(runName(t4), benchv1.PhaseFailed, false)
	got.Spec.Suspend = true
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if ks := kstatus(t, got); ks != status.InProgressStatus {
		t.Fatalf("kstatus %s before the operator saw the new generation", ks)
	}
	h.clock.SetTime(hour.Add(5*time.Hour + time.Minute))
	got = h.reconcile()
	if len(h.runs()) != 3 || meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady).Reason != ReasonSuspended {
		t.Fatalf("%v %+v", names(h.runs()), got.Status.Conditions)
	}

	// A schedule cron cannot read: Stalled, with the field named, and no run.
	got.Spec.Suspend, got.Spec.Schedule = false, "every tuesday"
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionStalled)
	if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "spec.schedule") || len(h.runs()) != 3 {
		t.Fatalf("%+v", got.Status.Conditions)
	}
	if ks := kstatus(t, got); ks != status.FailedStatus {
		t.Fatalf("kstatus %s for an unreadable schedule", ks)
	}
}
