package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// jitter is a fixed ±1.6% pattern: noise without randomness.
var jitter = []int64{0, 7, -5, 3, -8, 6, -2, 4, -6, 1, 8, -3, 5, -7, 2, -4, 6, -1}

// measure writes a finished run's status as the run controller would: five repetitions of
// go/ping@200 at p50 (µs, jittered), p99 steady at 1.5 ms, then the aggregated rows.
func (h *harness) measure(name string, i int, p50 int64) {
	h.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: h.key.Namespace, Name: name}, run); err != nil {
		h.t.Fatal(err)
	}
	run.Status.Trials = nil
	for rep := range 5 {
		v := p50 + p50*jitter[(i+rep)%len(jitter)]/500
		p99 := 1500 + 1500*jitter[(i+rep+3)%len(jitter)]/500
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: fmt.Sprintf("%s-%d", name, rep), Index: int32(rep), Target: "go", Scenario: "ping",
			LoadPoint: 200, Repetition: int32(rep + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: 200_000, P50Micros: v, P99Micros: p99}})
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	run.Status.Phase = benchv1.PhaseSucceeded
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: metav1.ConditionFalse, Reason: "Test"})
	if err := env.Client.Status().Update(context.Background(), run); err != nil {
		h.t.Fatal(err)
	}
}

func pingTemplate() benchv1.BenchmarkRunTemplate {
	return benchv1.BenchmarkRunTemplate{Spec: benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Rates: []int32{200}, Repetitions: 5},
	}}
}

func newHarness(t *testing.T, s *benchv1.BenchmarkSchedule) *harness {
	t.Helper()
	testenv.Long(t)
	if err := env.Client.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clock: clocktesting.NewFakeClock(s.CreationTimestamp.Add(time.Second)), events: events.NewFakeRecorder(1000),
		key: client.ObjectKeyFromObject(s)}
	h.r = &BenchmarkScheduleReconciler{Client: env.Client, Recorder: h.events, Clock: h.clock}
	return h
}

// Twelve hourly runs whose p50 steps up 20% from the ninth: the schedule reports no change
// point while the runs before it come in, then exactly one, at the ninth run, Slower, about
// +20%, recent, with Regressing True; p99, steady, has none. The history keeps all twelve
// runs' figures though the history limit deleted most runs; the metrics carry the change
// point, and go with the schedule.
func TestChangePointsOverScheduledRuns(t *testing.T) {
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", SuccessfulRunsHistoryLimit: ptr.To[int32](2), Template: pingTemplate()}}
	h := newHarness(t, s)
	store := opmetrics.NewScheduleStore()
	h.r.Metrics = store
	hour := s.CreationTimestamp.Truncate(time.Hour).Add(time.Hour)
	const n, k = 12, 8
	var names []string
	var got *benchv1.BenchmarkSchedule
	var detected metav1.Time
	for i := range n {
		at := hour.Add(time.Duration(i) * time.Hour)
		h.clock.SetTime(at.Add(time.Minute))
		h.reconcile()
		name := fmt.Sprintf("cp-%d", at.Unix()/60)
		names = append(names, name)
		p50 := int64(500)
		if i >= k {
			p50 = 600
		}
		h.measure(name, i, p50)
		got = h.reconcile()
		if got.Status.HistoryRuns != int32(i+1) {
			t.Fatalf("after run %d the history holds %d runs", i, got.Status.HistoryRuns)
		}
		for _, c := range got.Status.ChangePoints {
			if i < k || c.Run != names[k] {
				t.Fatalf("after run %d: a change point at %s: %+v", i, c.Run, got.Status.ChangePoints)
			}
		}
		if len(got.Status.ChangePoints) > 0 && detected.IsZero() {
			detected = got.Status.ChangePoints[0].DetectedAt
		}
		// The alert needs three runs at the new level, then stays.
		reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing)
		alerting := i >= k+history.DefaultMinRuns-1
		if reg == nil || (reg.Status == metav1.ConditionTrue) != alerting || len(got.Status.Alerts) != map[bool]int{true: 1}[alerting] ||
			(alerting && got.Status.Alerts[0].Run != names[k]) {
			t.Fatalf("after run %d: Regressing %+v with alerts %+v", i, reg, got.Status.Alerts)
		}
	}
	cps := got.Status.ChangePoints
	if len(cps) != 1 {
		t.Fatalf("%+v", cps)
	}
	c := cps[0]
	if c.Figure != "p50" || c.Target != "go" || c.Scenario != "ping" || c.LoadPoint != 200 || c.Run != names[k] || c.Direction != "Slower" ||
		c.ChangePPM < 180_000 || c.ChangePPM > 220_000 || !c.Recent || c.Before < 490 || c.Before > 510 || c.RunTime == nil ||
		!c.RunTime.Time.Equal(hour.Add(k*time.Hour)) || !c.DetectedAt.Equal(&detected) {
		t.Fatalf("%+v", c)
	}
	reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing)
	if reg.Reason != ReasonSlowerChangePoint || !strings.Contains(reg.Message, "go/ping@200 p50 +") || !strings.Contains(reg.Message, names[k]) {
		t.Fatalf("%+v", reg)
	}
	// The limit keeps two succeeded runs; the history keeps all twelve.
	if runs := h.runs(); len(runs) > 3 {
		t.Fatalf("%d runs kept: %v", len(runs), names)
	}
	cm := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: HistoryConfigMap("cp")}, cm); err != nil {
		t.Fatal(err)
	}
	var doc historyDoc
	if err := json.Unmarshal([]byte(cm.Data[historyKey]), &doc); err != nil || len(doc.Runs) != n || doc.Runs[0].Name != names[0] ||
		!metav1.IsControlledBy(cm, got) {
		t.Fatalf("%v: %d runs in %s", err, len(doc.Runs), cm.Name)
	}
	ev := strings.Join(h.drainEvents(), "\n")
	if !strings.Contains(ev, "change point: go/ping@200 p50 Slower +") {
		t.Fatalf("no change point event in:\n%s", ev)
	}

	// The metrics: the change point at its run's time, its magnitude, the newest figure.
	reg2 := prometheus.NewPedanticRegistry()
	reg2.MustRegister(store)
	want := fmt.Sprintf(`
# HELP gauntlet_schedule_change_point_timestamp_seconds Scheduled time of the first run at a change point's new level (status.changePoints), in Unix seconds.
# TYPE gauntlet_schedule_change_point_timestamp_seconds gauge
gauntlet_schedule_change_point_timestamp_seconds{direction="Slower",figure="p50",load_point="200",namespace="default",run="%s",scenario="ping",schedule="cp",target="go"} %d
# HELP gauntlet_schedule_regressing 1 while the schedule's Regressing condition is True.
# TYPE gauntlet_schedule_regressing gauge
gauntlet_schedule_regressing{namespace="default",schedule="cp"} 1
`, names[k], hour.Add(k*time.Hour).Unix())
	if err := testutil.GatherAndCompare(reg2, strings.NewReader(want), opmetrics.MetricChangePointTimestamp, opmetrics.MetricScheduleRegressing); err != nil {
		t.Fatal(err)
	}
	if v := testutil.ToFloat64(gaugeOf(t, reg2, opmetrics.MetricChangePointMagnitude)); v < 0.18 || v > 0.22 {
		t.Fatalf("magnitude %v", v)
	}
	if got, err := testutil.GatherAndCount(reg2, opmetrics.MetricScheduleFigure); err != nil || got != 2 {
		t.Fatalf("%d figure series (p50, p99), %v", got, err)
	}

	// Deleted, the schedule's series go.
	if err := env.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	h.reconcile2()
	if n := testutil.CollectAndCount(store); n != 0 {
		t.Fatalf("%d series of a deleted schedule", n)
	}
}

// reconcile2 reconciles without reading the schedule back (it may be gone).
func (h *harness) reconcile2() {
	h.t.Helper()
	if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key}); err != nil {
		h.t.Fatal(err)
	}
}

// gaugeOf is the one series of metric, as a Collector for testutil.ToFloat64.
func gaugeOf(t *testing.T, g prometheus.Gatherer, metric string) prometheus.Collector {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == metric && len(mf.GetMetric()) == 1 {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "x", Help: "x"}, func() float64 { return mf.GetMetric()[0].GetGauge().GetValue() })
		}
	}
	t.Fatalf("no single series of %s", metric)
	return nil
}

// triggered lists the schedule's runs with their trigger annotation.
func (h *harness) triggered() []string {
	var out []string
	for _, r := range h.runs() {
		out = append(out, r.Annotations[benchv1.AnnotationTrigger])
	}
	return out
}

// A new digest under the same tag starts a run; an unchanged one does not. The images are
// a bring-your-own target's and a preset's (through the operator's image configuration),
// both in a real registry served in-process.
func TestImageDigestTrigger(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	own, preset := host+"/own:latest", host+"/go-nethttp:1.0"
	ownDigest, presetDigest := pushRandom(t, own), pushRandom(t, preset)

	tpl := pingTemplate()
	tpl.Spec.Targets = append(tpl.Spec.Targets, benchv1.Target{Name: "own", Image: own, Port: ptr.To[int32](8080)})
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "digests", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *", Template: tpl,
			Triggers: &benchv1.ScheduleTriggers{ImageDigests: true, PollInterval: &metav1.Duration{Duration: time.Minute}}}}
	h := newHarness(t, s)
	h.r.Images = map[string]string{"go-nethttp": preset}
	h.r.InsecureRegistries = []string{host}
	step := func() *benchv1.BenchmarkSchedule {
		h.clock.Step(2 * time.Minute)
		return h.reconcile()
	}

	// The first digests are recorded, without a run.
	got := step()
	if len(h.runs()) != 0 || len(got.Status.ImageDigests) != 2 || got.Status.ImageDigests[0] != (benchv1.ImageDigest{Image: preset, Digest: presetDigest}) ||
		got.Status.ImageDigests[1] != (benchv1.ImageDigest{Image: own, Digest: ownDigest}) {
		t.Fatalf("%v %+v", h.triggered(), got.Status.ImageDigests)
	}
	// Unchanged: no run.
	if step(); len(h.runs()) != 0 {
		t.Fatalf("a run for unchanged digests: %v", h.triggered())
	}
	// A new image under the same tag: one run, the new digest recorded.
	newDigest := pushRandom(t, own)
	got = step()
	if tr := h.triggered(); len(tr) != 1 || tr[0] != benchv1.TriggerImageDigest || got.Status.ImageDigests[1].Digest != newDigest {
		t.Fatalf("%v %+v", tr, got.Status.ImageDigests)
	}
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, own+" moved from "+ownDigest+" to "+newDigest) {
		t.Fatalf("%s", ev)
	}
	// While it runs (Forbid), a newer image waits; once it is done, that one starts a run
	// and an unchanged one never does.
	newest := pushRandom(t, preset)
	if step(); len(h.runs()) != 1 {
		t.Fatalf("%v", h.triggered())
	}
	h.finish(h.runs()[0].Name, benchv1.PhaseSucceeded, false)
	if got = step(); len(h.runs()) != 2 || got.Status.ImageDigests[0].Digest != newest {
		t.Fatalf("%v %+v", h.triggered(), got.Status.ImageDigests)
	}
	h.finish(h.runs()[1].Name, benchv1.PhaseSucceeded, false)
	step()
	if step(); len(h.runs()) != 2 {
		t.Fatalf("%v", h.triggered())
	}
	// An unreachable registry is an event, not a run or an error.
	srv.Close()
	step()
	if ev := strings.Join(h.drainEvents(), "\n"); len(h.runs()) != 2 || !strings.Contains(ev, ReasonDigestFailed) {
		t.Fatalf("%v\n%s", h.triggered(), ev)
	}
}

// A GitOps commit that changes a target's image in the template starts a run (the first
// template seen is recorded without one); suspended, it waits.
func TestTemplateChangeTrigger(t *testing.T) {
	ctx := context.Background()
	tpl := pingTemplate()
	tpl.Spec.Targets = []benchv1.Target{{Name: "own", Image: "registry.example/own:1", Port: ptr.To[int32](8080)}}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "gitops", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *", Template: tpl, Triggers: &benchv1.ScheduleTriggers{TemplateChanges: true}}}
	h := newHarness(t, s)
	got := h.reconcile()
	if len(h.runs()) != 0 || got.Status.LastTemplateHash == "" {
		t.Fatalf("%v %+v", h.triggered(), got.Status)
	}
	edit := func(image string, suspend bool) {
		got.Spec.Template.Spec.Targets[0].Image, got.Spec.Suspend = image, suspend
		if err := env.Client.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		h.clock.Step(2 * time.Minute)
		got = h.reconcile()
	}
	edit("registry.example/own:2", false)
	runs := h.runs()
	if len(runs) != 1 || runs[0].Annotations[benchv1.AnnotationTrigger] != benchv1.TriggerTemplateChange || runs[0].Spec.Targets[0].Image != "registry.example/own:2" {
		t.Fatalf("%v", h.triggered())
	}
	h.finish(runs[0].Name, benchv1.PhaseSucceeded, false)
	h.clock.Step(2 * time.Minute)
	if got = h.reconcile(); len(h.runs()) != 1 {
		t.Fatalf("a second run for the same template: %v", h.triggered())
	}
	edit("registry.example/own:3", true)
	if len(h.runs()) != 1 {
		t.Fatalf("suspended, yet %v", h.triggered())
	}
	edit("registry.example/own:3", false)
	if runs := h.runs(); len(runs) != 2 || runs[1].Spec.Targets[0].Image != "registry.example/own:3" {
		t.Fatalf("%v", h.triggered())
	}
}

// Under Forbid, a template changed while a run is in progress is first run at the next
// scheduled time: that run is named for the time, yet says TemplateChange, so the history
// and the user see where the template changed (the lab's schedule drill waits for it).
func TestTemplateChangeHeldBackByARunSaysSo(t *testing.T) {
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "*/5 * * * *", ConcurrencyPolicy: benchv1.ConcurrencyForbid, Template: pingTemplate(),
			Triggers: &benchv1.ScheduleTriggers{TemplateChanges: true}}}
	h := newHarness(t, s)
	h.reconcile()
	h.clock.Step(5 * time.Minute)
	got := h.reconcile()
	if tr := h.triggered(); len(tr) != 1 || tr[0] != benchv1.TriggerSchedule {
		t.Fatalf("the first scheduled run: %v", tr)
	}
	got.Spec.Template.Spec.Load.Rates = []int32{300}
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	h.clock.Step(time.Second)
	if h.reconcile(); len(h.runs()) != 1 {
		t.Fatalf("a second run beside the first under Forbid: %v", h.triggered())
	}
	h.finish(h.runs()[0].Name, benchv1.PhaseSucceeded, false)
	h.clock.Step(5 * time.Minute)
	h.reconcile()
	runs := h.runs()
	if len(runs) != 2 || runs[1].Annotations[benchv1.AnnotationTrigger] != benchv1.TriggerTemplateChange || runs[1].Spec.Load.Rates[0] != 300 ||
		runs[1].Annotations[benchv1.AnnotationScheduledAt] == "" {
		t.Fatalf("after the run in progress: %v, %+v", h.triggered(), runs[len(runs)-1].Annotations)
	}
	h.finish(runs[1].Name, benchv1.PhaseSucceeded, false)
	h.clock.Step(5 * time.Minute)
	if h.reconcile(); len(h.runs()) != 3 || h.triggered()[2] != benchv1.TriggerSchedule {
		t.Fatalf("the next time, template unchanged: %v", h.triggered())
	}
}

// With both triggers, a commit that moves the template to another image starts one run,
// which records the new image's digest: the next poll finds nothing new to run for, even
// when the change comes before the poll interval has passed.
func TestTemplateChangeOfAnImageStartsOneRun(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	first, second := host+"/own:1", host+"/own:2"
	pushRandom(t, first)
	secondDigest := pushRandom(t, second)
	tpl := pingTemplate()
	tpl.Spec.Targets = []benchv1.Target{{Name: "own", Image: first, Port: ptr.To[int32](8080)}}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *", Template: tpl, Triggers: &benchv1.ScheduleTriggers{
			ImageDigests: true, TemplateChanges: true, PollInterval: &metav1.Duration{Duration: 15 * time.Minute}}}}
	h := newHarness(t, s)
	h.r.InsecureRegistries = []string{host}
	got := h.reconcile()
	if len(h.runs()) != 0 || len(got.Status.ImageDigests) != 1 {
		t.Fatalf("%v %+v", h.triggered(), got.Status)
	}
	// The commit, a minute later: well within the poll interval.
	got.Spec.Template.Spec.Targets[0].Image = second
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	h.clock.Step(time.Minute)
	got = h.reconcile()
	if tr := h.triggered(); len(tr) != 1 || tr[0] != benchv1.TriggerTemplateChange {
		t.Fatalf("after the commit: %v, want one TemplateChange run", tr)
	}
	if want := (benchv1.ImageDigest{Image: second, Digest: secondDigest}); len(got.Status.ImageDigests) != 1 || got.Status.ImageDigests[0] != want {
		t.Fatalf("the run recorded %+v, want %+v", got.Status.ImageDigests, want)
	}
	h.finish(h.runs()[0].Name, benchv1.PhaseSucceeded, false)
	h.clock.Step(16 * time.Minute)
	if h.reconcile(); len(h.runs()) != 1 {
		t.Fatalf("a second run at the next poll, for the image the first already ran: %v", h.triggered())
	}
}

// pushRandom pushes a new random image as ref and returns its digest.
func pushRandom(t *testing.T, ref string) string {
	t.Helper()
	img, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := crane.Push(img, ref); err != nil {
		t.Fatal(err)
	}
	d, _ := img.Digest()
	return d.String()
}

// An alert stays while the slower level lasts (not five runs), clears when the runs come
// back to the old level, and, once accepted in spec.triage, clears, moves the baseline to
// the accepted run although it Regressed, and does not come back for the same step.
func TestAlertStaysUntilUndoneOrTriaged(t *testing.T) {
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "triage", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", SuccessfulRunsHistoryLimit: ptr.To[int32](50), Template: pingTemplate()}}
	h := newHarness(t, s)
	hour := s.CreationTimestamp.Truncate(time.Hour).Add(time.Hour)
	var names []string
	var got *benchv1.BenchmarkSchedule
	// run measures the next run at p50, Regressed when slower than 550 µs (as the run's own
	// comparison with a 500 µs baseline would say).
	run := func(p50 int64) {
		i := len(names)
		at := hour.Add(time.Duration(i) * time.Hour)
		h.clock.SetTime(at.Add(time.Minute))
		h.reconcile()
		name := fmt.Sprintf("triage-%d", at.Unix()/60)
		names = append(names, name)
		h.measure(name, i, p50)
		if p50 > 550 {
			h.finish(name, benchv1.PhaseSucceeded, true)
		}
		got = h.reconcile()
	}
	regressing := func() bool {
		return meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionRegressing)
	}
	for range 10 {
		run(500)
	}
	for range 10 {
		run(600)
	}
	if !regressing() || len(got.Status.Alerts) != 1 || got.Status.Alerts[0].Run != names[10] || got.Status.LastGoodRun != names[9] {
		t.Fatalf("ten runs after the step: %+v, last good %s", got.Status.Alerts, got.Status.LastGoodRun)
	}
	ev := strings.Join(h.drainEvents(), "\n")
	if strings.Count(ev, ReasonRegression+" ") != 1 {
		t.Fatalf("want one Regression event:\n%s", ev)
	}
	// Fixed: three runs back at the old level clear it.
	for range 3 {
		run(500)
	}
	if regressing() || len(got.Status.Alerts) != 0 || !strings.Contains(strings.Join(h.drainEvents(), "\n"), "back near the old level") {
		t.Fatalf("after the fix: %+v", got.Status.Alerts)
	}
	for range 7 {
		run(500)
	}
	// A deliberate slowdown: alerted, then accepted as the new normal.
	for range 3 {
		run(600)
	}
	step := names[len(names)-3]
	if !regressing() || len(got.Status.Alerts) != 1 || got.Status.Alerts[0].Run != step {
		t.Fatalf("the second step: %+v", got.Status.Alerts)
	}
	got.Spec.Triage = []benchv1.ScheduleTriage{{Run: step, Figure: "p50", Action: benchv1.TriageAccept, Note: "TLS on by default"}}
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = h.reconcile()
	if regressing() || len(got.Status.Alerts) != 0 || got.Status.LastGoodRun != step {
		t.Fatalf("accepted: %+v, last good %s", got.Status.Alerts, got.Status.LastGoodRun)
	}
	for range 5 {
		run(600)
	}
	if regressing() || len(got.Status.Alerts) != 0 {
		t.Fatalf("the accepted step alerted again: %+v", got.Status.Alerts)
	}
	// The next run is compared with the accepted one, not with a run of the old level.
	if runs := h.runs(); runs[len(runs)-1].Spec.Baseline == nil || runs[len(runs)-1].Spec.Baseline.Run != step {
		t.Fatalf("baseline %+v", runs[len(runs)-1].Spec.Baseline)
	}
	// A pinned baseline wins over the last good run.
	got.Spec.BaselineRun = names[0]
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if got = h.reconcile(); got.Status.LastGoodRun != names[0] {
		t.Fatalf("pinned: last good %s", got.Status.LastGoodRun)
	}
}
