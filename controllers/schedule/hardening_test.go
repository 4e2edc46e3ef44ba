package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/schedtime"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// digestSchedule is a schedule whose one target's image is image, with the digest trigger.
func digestSchedule(name, image string) *benchv1.BenchmarkSchedule {
	tpl := pingTemplate()
	tpl.Spec.Targets = []benchv1.Target{{Name: "own", Image: image, Port: ptr.To[int32](8080)}}
	return &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *", Template: tpl,
			Triggers: &benchv1.ScheduleTriggers{ImageDigests: true, PollInterval: &metav1.Duration{Duration: time.Minute}}}}
}

// reconcileWithin fails the test when one pass takes longer than limit (a hung pass would
// otherwise hang the test).
func (h *harness) reconcileWithin(limit time.Duration) {
	h.t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			h.t.Fatal(err)
		}
	case <-time.After(limit):
		h.t.Fatalf("a pass took over %s", limit)
	}
}

// A registry that accepts connections and never answers costs a pass at most the registry
// timeout: the schedule's times, and every other schedule, go on.
func TestHangingRegistryIsCutShort(t *testing.T) {
	testenv.Long(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered
		}
	}()
	host := ln.Addr().String()
	h := newHarness(t, digestSchedule("hang", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.r.RegistryTimeout = 300 * time.Millisecond
	h.reconcileWithin(5 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, ReasonDigestFailed) || !strings.Contains(ev, "no answer") {
		t.Fatalf("%s", ev)
	}
}

// A registry's response body never reaches an event (its bytes are the tenant's: escape
// sequences, a fake message); its status code does.
func TestRegistryBodyNotInEvents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("\x1b[2J\x1b[31mEVIL: click http://phish.example\x07"))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	h := newHarness(t, digestSchedule("body", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.reconcileWithin(20 * time.Second)
	ev := strings.Join(h.drainEvents(), "\n")
	if !strings.Contains(ev, "HTTP 500") || strings.Contains(ev, "EVIL") || strings.ContainsAny(ev, "\x1b\x07") {
		t.Fatalf("%q", ev)
	}
}

// Plain HTTP to a loopback or private registry is refused unless the operator lists it;
// an image outside --allowed-registries is refused without contacting its registry; each
// says which field or flag.
func TestRegistryPolicy(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	h := newHarness(t, digestSchedule("plainhttp", host+"/own:1"))
	h.reconcileWithin(20 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, "plain HTTP refused") || hits.Load() != 0 {
		t.Fatalf("%d requests; %s", hits.Load(), ev)
	}

	h = newHarness(t, digestSchedule("notallowed", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.r.AllowedRegistries = []string{"ghcr.io/acme"}
	h.reconcileWithin(20 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, "spec.template.spec.targets[0].image") || hits.Load() != 0 {
		t.Fatalf("%d requests; %s", hits.Load(), ev)
	}
}

// Under concurrencyPolicy Allow, a per-five-minute cron whose runs never finish stops at
// MaxActiveRuns runs, saying why; status.runs stays within its CRD bound.
func TestAllowCapsActiveRuns(t *testing.T) {
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "runaway", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "*/5 * * * *", ConcurrencyPolicy: benchv1.ConcurrencyAllow, Template: pingTemplate()}}
	h := newHarness(t, s)
	for range 12 {
		h.clock.Step(5 * time.Minute)
		h.reconcile()
	}
	if n := len(h.runs()); n != MaxActiveRuns {
		t.Fatalf("%d runs in progress, want %d", n, MaxActiveRuns)
	}
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, "the most concurrencyPolicy Allow starts") {
		t.Fatalf("%s", ev)
	}
	many := make([]*benchv1.BenchmarkRun, maxStatusRuns+40)
	for i := range many {
		many[i] = &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d", i)}}
	}
	if st := runStatuses(many); len(st) != maxStatusRuns || st[len(st)-1].Name != many[len(many)-1].Name {
		t.Fatalf("%d statuses", len(st))
	}
}

// A run that carries the schedule's label but that the schedule does not control is not
// its own: not counted, not a baseline, not pruned.
func TestRunsAdoptedByOwnerOnly(t *testing.T) {
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "owned", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", SuccessfulRunsHistoryLimit: ptr.To[int32](0), Template: pingTemplate()}}
	h := newHarness(t, s)
	stranger := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "owned-stranger", Namespace: "default",
		Labels: map[string]string{benchv1.LabelSchedule: "owned"}}, Spec: pingTemplate().Spec}
	if err := env.Client.Create(ctx, stranger); err != nil {
		t.Fatal(err)
	}
	h.finish(stranger.Name, benchv1.PhaseSucceeded, false)
	got := h.reconcile()
	if got.Status.LastGoodRun != "" || len(got.Status.Runs) != 0 {
		t.Fatalf("a stranger's run adopted: %+v", got.Status)
	}
	if runs := h.runs(); len(runs) != 1 || runs[0].Name != stranger.Name || runs[0].DeletionTimestamp != nil {
		t.Fatalf("%v", names(runs))
	}
}

// Times closer than MinInterval and names longer than MaxNameLength stall the schedule with
// the field named, and start nothing.
func TestRefusedSchedules(t *testing.T) {
	for _, c := range []struct{ name, schedule, field string }{
		{"every-second", "@every 1s", "spec.schedule"},
		{"every-29s", "@every 29s", "spec.schedule"},
	} {
		s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: "default"},
			Spec: benchv1.BenchmarkScheduleSpec{Schedule: c.schedule, Template: pingTemplate()}}
		h := newHarness(t, s)
		h.clock.Step(48 * time.Hour)
		got := h.reconcile()
		cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionStalled)
		if cond == nil || cond.Status != metav1.ConditionTrue || !strings.HasPrefix(cond.Message, c.field) || got.Status.LastScheduleTime != nil {
			t.Errorf("%s: %+v, %+v", c.schedule, cond, got.Status)
		}
	}
	// A name too long is refused at admission, and by the controller should the CRD's rule
	// be missing (an older CRD).
	long := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("n", 64), Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "@daily", Template: pingTemplate()}}
	if err := env.Client.Create(context.Background(), long); err == nil || !strings.Contains(err.Error(), "metadata.name") {
		t.Errorf("a 64-character name: %v", err)
	}
	r := &BenchmarkScheduleReconciler{Recorder: events.NewFakeRecorder(10)}
	sc := &scope{schedule: long, now: time.Now()}
	if err := r.parseSchedule(context.Background(), sc); err != nil || !sc.stop ||
		!strings.HasPrefix(meta.FindStatusCondition(long.Status.Conditions, benchv1.ConditionStalled).Message, "metadata.name") {
		t.Errorf("the controller took a 64-character name: %+v", long.Status.Conditions)
	}
	for _, ok := range []string{"* * * * *", "0,1 0 * * *", "@every 30s", "@daily", "0 0 1 1 *"} {
		sched, err := cron.ParseStandard(ok)
		if err != nil || schedtime.ClosestGap(sched, time.Now()) < MinInterval {
			t.Errorf("%s refused", ok)
		}
	}
}

// An unrelated <schedule>-history ConfigMap is neither overwritten nor read; Regressing is
// Unknown, saying why.
func TestHistoryConfigMapOfSomeoneElse(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HistoryConfigMap("squat"), Namespace: "default"}, Data: map[string]string{"app": "settings"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "squat", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", Template: pingTemplate()}}
	h := newHarness(t, s)
	got := h.reconcile()
	after := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), after); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing)
	if after.Data["app"] != "settings" || len(after.OwnerReferences) != 0 || c == nil || c.Status != metav1.ConditionUnknown || c.Reason != ReasonHistoryNotOwned {
		t.Fatalf("%+v %+v", after, c)
	}
}

// A forged history (a duplicated row, a thousand runs, values no run has) cannot fail the
// manager's /metrics for every schedule, nor cost the worker more than a bounded history.
func TestForgedHistory(t *testing.T) {
	ctx := context.Background()
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", Template: pingTemplate()}}
	h := newHarness(t, s)
	store := opmetrics.NewScheduleStore()
	h.r.Metrics = store
	h.reconcile() // creates the (empty) history ConfigMap, owned by the schedule
	var doc historyDoc
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		row := history.Row{Key: history.Key{Target: "go", Scenario: "ping", LoadPoint: 200}, Values: map[string]float64{"p50": float64(500 + i%7), "bogus": 1}}
		doc.Runs = append(doc.Runs, historyRun{Name: fmt.Sprintf("f%d", i), Time: base.Add(time.Duration(i) * time.Hour), Rows: []history.Row{row, row}})
	}
	doc.Runs = append(doc.Runs, doc.Runs[999]) // the same run twice
	data, _ := json.Marshal(doc)
	cm := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: HistoryConfigMap("forged")}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{historyKey: string(data)}
	if err := env.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	h.clock.Step(time.Minute)
	got := h.reconcile()
	if took := time.Since(start); took > 20*time.Second || got.Status.HistoryRuns != HistoryMaxRuns {
		t.Fatalf("%s, %d runs held", took, got.Status.HistoryRuns)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(store)
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("/metrics fails: %v", err)
	}
	// The row written twice is exported once even if the store is handed it directly.
	row := history.Row{Key: history.Key{Target: "go", Scenario: "ping", LoadPoint: 200}, Values: map[string]float64{"p50": 1}}
	store.Observe(got, []history.Row{row, row})
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("/metrics fails: %v", err)
	}
}
