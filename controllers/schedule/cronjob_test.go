package schedule

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// What a Kubernetes user expects of a schedule from CronJob: a time zone, a starting
// deadline, Replace, and a run asked for by hand. Through a fake client: each pass is a
// step of the test at a fake clock's time.

// fakeHarness reconciles one schedule held by a fake client.
type fakeHarness struct {
	t      *testing.T
	c      client.Client
	r      *BenchmarkScheduleReconciler
	clock  *clocktesting.FakeClock
	events *events.FakeRecorder
	key    client.ObjectKey
}

// newFakeHarness holds s, created at created, and the runs given, at created's clock.
func newFakeHarness(t *testing.T, s *benchv1.BenchmarkSchedule, created time.Time, runs ...client.Object) *fakeHarness {
	t.Helper()
	s.Namespace, s.UID, s.CreationTimestamp = "default", k8stypes.UID("u-"+s.Name), metav1.NewTime(created)
	if s.Spec.Template.Spec.Targets == nil {
		s.Spec.Template = pingTemplate()
	}
	c := writesClient(t, &scheduleWrites{}, nil, append([]client.Object{s}, runs...)...)
	h := &fakeHarness{t: t, c: c, clock: clocktesting.NewFakeClock(created), events: events.NewFakeRecorder(100), key: client.ObjectKeyFromObject(s)}
	h.r = &BenchmarkScheduleReconciler{Client: c, Recorder: h.events, Clock: h.clock}
	return h
}

// at reconciles at time now and returns the schedule as written, and the pass's result.
func (h *fakeHarness) at(now time.Time) (*benchv1.BenchmarkSchedule, ctrl.Result) {
	h.t.Helper()
	h.clock.SetTime(now)
	res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key})
	if err != nil {
		h.t.Fatal(err)
	}
	return h.get(), res
}

func (h *fakeHarness) get() *benchv1.BenchmarkSchedule {
	h.t.Helper()
	s := &benchv1.BenchmarkSchedule{}
	if err := h.c.Get(context.Background(), h.key, s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// edit changes the schedule's spec or metadata as kubectl apply would.
func (h *fakeHarness) edit(f func(s *benchv1.BenchmarkSchedule)) {
	h.t.Helper()
	s := h.get()
	f(s)
	if err := h.c.Update(context.Background(), s); err != nil {
		h.t.Fatal(err)
	}
}

// runs are the schedule's runs by name; deleting ones included.
func (h *fakeHarness) runs() []benchv1.BenchmarkRun {
	h.t.Helper()
	list := &benchv1.BenchmarkRunList{}
	if err := h.c.List(context.Background(), list, client.InNamespace("default")); err != nil {
		h.t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b benchv1.BenchmarkRun) int { return strings.Compare(a.Name, b.Name) })
	return list.Items
}

func (h *fakeHarness) finish(name string) {
	h.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, run); err != nil {
		h.t.Fatal(err)
	}
	run.Status.Phase = benchv1.PhaseSucceeded
	if err := h.c.Status().Update(context.Background(), run); err != nil {
		h.t.Fatal(err)
	}
}

func (h *fakeHarness) drain() string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return strings.Join(out, "\n")
		}
	}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// "0 3 * * *" in Europe/Berlin runs at 02:00 UTC in winter, and says its next time in UTC;
// an unknown zone or a CRON_TZ= prefix stalls the schedule, naming the field to use.
func TestTimeZone(t *testing.T) {
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "berlin"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 3 * * *", TimeZone: "Europe/Berlin"}}
	h := newFakeHarness(t, s, utc("2026-01-10T00:00:00Z"))
	got, _ := h.at(utc("2026-01-10T01:30:00Z"))
	if len(h.runs()) != 0 || !got.Status.NextScheduleTime.Time.Equal(utc("2026-01-10T02:00:00Z")) {
		t.Fatalf("before 03:00 Berlin: %d runs, next %s", len(h.runs()), got.Status.NextScheduleTime)
	}
	got, _ = h.at(utc("2026-01-10T02:00:30Z"))
	if runs := h.runs(); len(runs) != 1 || runs[0].Annotations[benchv1.AnnotationScheduledAt] != "2026-01-10T02:00:00Z" ||
		!got.Status.NextScheduleTime.Time.Equal(utc("2026-01-11T02:00:00Z")) {
		t.Fatalf("at 03:00 Berlin: %v, next %s", h.runs(), got.Status.NextScheduleTime)
	}

	for _, c := range []struct{ schedule, zone, field string }{
		{"0 3 * * *", "Europe/Atlantis", "spec.timeZone"},
		{"CRON_TZ=Europe/Berlin 0 3 * * *", "", "spec.schedule"},
	} {
		bad := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: benchv1.BenchmarkScheduleSpec{Schedule: c.schedule, TimeZone: c.zone}}
		h := newFakeHarness(t, bad, utc("2026-01-10T00:00:00Z"))
		got, _ := h.at(utc("2026-01-12T00:00:00Z"))
		cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionStalled)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonInvalidSchedule ||
			!strings.HasPrefix(cond.Message, c.field) || !strings.Contains(cond.Message, "timeZone") || len(h.runs()) != 0 {
			t.Errorf("%q in %q: %+v, %d runs", c.schedule, c.zone, cond, len(h.runs()))
		}
	}
}

// With startingDeadlineSeconds, times the manager was down for are skipped and counted, not
// run late; a time under Forbid waits for the run in progress up to the deadline, then is
// skipped; resuming a suspended schedule skips the times that passed meanwhile. Without it,
// the latest time runs however late.
func TestStartingDeadline(t *testing.T) {
	created := utc("2026-01-01T00:30:00Z")
	hour := func(n int) time.Time { return utc("2026-01-01T00:00:00Z").Add(time.Duration(n) * time.Hour) }
	newSchedule := func(deadline *int64) *benchv1.BenchmarkSchedule {
		return &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "hourly"},
			Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", StartingDeadlineSeconds: deadline}}
	}

	// Down from 00:30 to 03:10: without a deadline the 03:00 run starts at 03:10.
	h := newFakeHarness(t, newSchedule(nil), created)
	h.at(created)
	if got, _ := h.at(hour(3).Add(10 * time.Minute)); len(h.runs()) != 1 || got.Status.MissedScheduleTimes != 0 {
		t.Fatalf("without a deadline: %d runs, %+v", len(h.runs()), got.Status)
	}

	// With 300 s, the three times are missed: counted, said, none run, none counted twice.
	h = newFakeHarness(t, newSchedule(ptr.To[int64](300)), created)
	h.at(created)
	got, _ := h.at(hour(3).Add(10 * time.Minute))
	if len(h.runs()) != 0 || got.Status.MissedScheduleTimes != 3 || !got.Status.LastScheduleTime.Time.Equal(hour(3)) {
		t.Fatalf("down past the deadline: %d runs, %+v", len(h.runs()), got.Status)
	}
	if ev := h.drain(); !strings.Contains(ev, "Warning MissedSchedule skipped 3 scheduled time(s), the latest 2026-01-01T03:00:00Z") {
		t.Fatalf("events: %s", ev)
	}
	if got, _ = h.at(hour(3).Add(20 * time.Minute)); got.Status.MissedScheduleTimes != 3 {
		t.Fatalf("counted again: %+v", got.Status)
	}
	// 04:00 is started within the deadline.
	if got, _ = h.at(hour(4).Add(time.Minute)); len(h.runs()) != 1 || !got.Status.LastScheduleTime.Time.Equal(hour(4)) {
		t.Fatalf("at 04:01: %d runs, %+v", len(h.runs()), got.Status)
	}
	first := h.runs()[0].Name

	// 05:00 comes while 04:00's run is in progress: Forbid holds it, within the deadline,
	// without a skip; the run finishing at 05:03 lets it start, late but within 300 s.
	got, res := h.at(hour(5).Add(time.Second))
	if len(h.runs()) != 1 || !got.Status.LastScheduleTime.Time.Equal(hour(4)) || res.RequeueAfter > 301*time.Second {
		t.Fatalf("held: %d runs, %+v, requeue %s", len(h.runs()), got.Status, res.RequeueAfter)
	}
	if ready := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady); !strings.Contains(ready.Message, "waits for "+first) {
		t.Fatalf("Ready: %+v", ready)
	}
	if ev := h.drain(); strings.Contains(ev, "skipped") {
		t.Fatalf("a held time said skipped: %s", ev)
	}
	h.finish(first)
	if got, _ = h.at(hour(5).Add(3 * time.Minute)); len(h.runs()) != 2 || !got.Status.LastScheduleTime.Time.Equal(hour(5)) {
		t.Fatalf("after the run in progress: %d runs, %+v", len(h.runs()), got.Status)
	}
	// 06:00's run waits for 05:00's past the deadline: skipped and counted.
	h.at(hour(6).Add(time.Second))
	if got, _ = h.at(hour(6).Add(6 * time.Minute)); len(h.runs()) != 2 || got.Status.MissedScheduleTimes != 4 {
		t.Fatalf("held past the deadline: %d runs, %+v", len(h.runs()), got.Status)
	}

	// Suspended from 06:30 to 08:30: 07:00 and 08:00 are missed when it resumes.
	for _, r := range h.runs() {
		h.finish(r.Name)
	}
	h.edit(func(s *benchv1.BenchmarkSchedule) { s.Spec.Suspend = true })
	h.at(hour(6).Add(30 * time.Minute))
	h.at(hour(7).Add(30 * time.Minute))
	h.edit(func(s *benchv1.BenchmarkSchedule) { s.Spec.Suspend = false })
	if got, _ = h.at(hour(8).Add(30 * time.Minute)); len(h.runs()) != 2 || got.Status.MissedScheduleTimes != 6 {
		t.Fatalf("resumed: %d runs, %+v", len(h.runs()), got.Status)
	}
}

// Replace deletes the run in progress (its finalizer then cleans up) and starts the new
// one; an event names both.
func TestReplacePolicy(t *testing.T) {
	created := utc("2026-01-01T00:30:00Z")
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "latest"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", ConcurrencyPolicy: benchv1.ConcurrencyReplace}}
	h := newFakeHarness(t, s, created)
	h.at(utc("2026-01-01T01:00:10Z"))
	runs := h.runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	old := runs[0]
	old.Finalizers = []string{"gauntlet.dev/cleanup"} // as the run controller adds
	if err := h.c.Update(context.Background(), &old); err != nil {
		t.Fatal(err)
	}
	h.drain()
	h.at(utc("2026-01-01T02:00:10Z"))
	runs = h.runs()
	if len(runs) != 2 || runs[0].Name != old.Name || runs[0].DeletionTimestamp == nil || runs[1].DeletionTimestamp != nil {
		t.Fatalf("after the second time: %+v", runs)
	}
	want := "Normal RunReplaced deleted " + old.Name + ", still in progress, to start " + runs[1].Name
	if ev := h.drain(); !strings.Contains(ev, want) {
		t.Fatalf("events:\n%s\nwant %q", ev, want)
	}
	// The next pass (the old run still finishing its cleanup) starts nothing more.
	h.at(utc("2026-01-01T02:01:00Z"))
	if n := len(h.runs()); n != 2 {
		t.Fatalf("%d runs", n)
	}
}

// Each new gauntlet.dev/run-now value starts exactly one run, annotated Manual with the
// value; a re-applied value, a lost status write, or a value already there when the schedule
// is first seen start none; two in one minute are two runs; Forbid holds one behind a run
// in progress, and suspend holds it too.
func TestRunNowAnnotation(t *testing.T) {
	created := utc("2026-03-01T10:00:00Z")
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "manual", Annotations: map[string]string{benchv1.AnnotationRunNow: "restored"}},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *"}}
	h := newFakeHarness(t, s, created)
	if got, _ := h.at(created.Add(time.Second)); len(h.runs()) != 0 || got.Status.LastRunRequest != "restored" {
		t.Fatalf("first seen: %d runs, %+v", len(h.runs()), got.Status)
	}
	request := func(v string) {
		h.edit(func(s *benchv1.BenchmarkSchedule) { s.Annotations[benchv1.AnnotationRunNow] = v })
	}
	request("1")
	got, _ := h.at(created.Add(time.Minute))
	runs := h.runs()
	if len(runs) != 1 || runs[0].Annotations[benchv1.AnnotationTrigger] != benchv1.TriggerManual ||
		runs[0].Annotations[benchv1.AnnotationRunNow] != "1" || got.Status.LastRunRequest != "1" {
		t.Fatalf("request 1: %+v, %+v", runs, got.Status)
	}
	if ev := h.drain(); !strings.Contains(ev, "RunTriggered started "+runs[0].Name+": gauntlet.dev/run-now=1") {
		t.Fatalf("events: %s", ev)
	}
	// Re-applied, and with the status write lost (a restart): no second run.
	got, _ = h.at(created.Add(2 * time.Minute))
	got.Status.LastRunRequest = "restored"
	if err := h.c.Status().Update(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	if got, _ = h.at(created.Add(3 * time.Minute)); len(h.runs()) != 1 || got.Status.LastRunRequest != "1" {
		t.Fatalf("again: %d runs, %+v", len(h.runs()), got.Status)
	}
	// A second request while the first runs: held under Forbid, started once it finishes,
	// in the same minute as another request: two runs, two names.
	request("2")
	h.at(created.Add(4 * time.Minute))
	if len(h.runs()) != 1 {
		t.Fatalf("beside a run in progress under Forbid: %d runs", len(h.runs()))
	}
	h.finish(runs[0].Name)
	h.at(created.Add(5 * time.Minute))
	h.finish(h.runs()[1].Name)
	request("3")
	got, _ = h.at(created.Add(5*time.Minute + 10*time.Second))
	runs = h.runs()
	if len(runs) != 3 || runs[1].Annotations[benchv1.AnnotationRunNow] != "2" || runs[2].Annotations[benchv1.AnnotationRunNow] != "3" || got.Status.LastRunRequest != "3" {
		t.Fatalf("requests 2 and 3: %v, %+v", runs, got.Status)
	}
	// Suspended: the request waits for the schedule to resume.
	h.finish(runs[2].Name)
	h.edit(func(s *benchv1.BenchmarkSchedule) {
		s.Spec.Suspend, s.Annotations[benchv1.AnnotationRunNow] = true, "4"
	})
	h.at(created.Add(10 * time.Minute))
	if len(h.runs()) != 3 {
		t.Fatalf("suspended: %d runs", len(h.runs()))
	}
	h.edit(func(s *benchv1.BenchmarkSchedule) { s.Spec.Suspend = false })
	if got, _ = h.at(created.Add(11 * time.Minute)); len(h.runs()) != 4 || got.Status.LastRunRequest != "4" {
		t.Fatalf("resumed: %d runs, %+v", len(h.runs()), got.Status)
	}
}
