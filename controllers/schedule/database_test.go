package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// testPorts keeps development runs inside the loopback range reserved for this work.
var testPorts = loopback.PortRange{Lo: 18000, Hi: 18999}

// wideRates: 3 targets × ping × 12 rates are 36 rows, past the ConfigMap's 32.
var wideRates = []int32{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200}

func wideTemplate() benchv1.BenchmarkRunTemplate {
	return benchv1.BenchmarkRunTemplate{Spec: benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go-a", Preset: "go-nethttp"}, {Name: "go-b", Preset: "go-nethttp"}, {Name: "go-c", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Rates: wideRates, Repetitions: 1},
	}}
}

// measureWide finishes a run of wideTemplate: every row Succeeded at p50 µs.
func (h *harness) measureWide(name string, p50 int64) {
	h.t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: h.key.Namespace, Name: name}, run); err != nil {
		h.t.Fatal(err)
	}
	run.Status.Trials = nil
	for _, tg := range run.Spec.Targets {
		for _, rate := range wideRates {
			run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: fmt.Sprintf("%s-%s-%d", name, tg.Name, rate),
				Index: int32(len(run.Status.Trials)), Target: tg.Name, Scenario: "ping", LoadPoint: rate, Repetition: 1,
				Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: int64(rate) * 1000, P50Micros: p50, P99Micros: 3 * p50}})
		}
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	run.Status.Phase = benchv1.PhaseSucceeded
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: metav1.ConditionFalse, Reason: "Test"})
	if err := env.Client.Status().Update(context.Background(), run); err != nil {
		h.t.Fatal(err)
	}
}

// historyDB is a real PostgreSQL behind a PgBouncer (stopped and started again on its
// port: an outage that keeps the data), with the URL file the manager is given.
type historyDB struct {
	t       *testing.T
	pg      *localdb.Postgres
	bouncer *localdb.PgBouncer
	urlFile string
	conn    *pgx.Conn
}

func startHistoryDB(t *testing.T) *historyDB {
	t.Helper()
	testenv.Long(t)
	ctx := context.Background()
	pg, err := localdb.StartPostgres(ctx, localdb.PostgresOptions{Ports: testPorts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	db := &historyDB{t: t, pg: pg, urlFile: filepath.Join(t.TempDir(), "uri")}
	db.up(0)
	t.Cleanup(func() { db.down() })
	if err := os.WriteFile(db.urlFile, []byte(db.bouncer.DSN()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if db.conn, err = pgx.Connect(ctx, pg.DSN()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.conn.Close(ctx) })
	return db
}

// up starts the pooler on port (0: a free one).
func (db *historyDB) up(port int) {
	db.t.Helper()
	b, err := localdb.StartPgBouncer(context.Background(), localdb.PgBouncerOptions{Postgres: db.pg, PoolMode: benchv1.PoolModeSession, Port: port, Ports: testPorts})
	if err != nil {
		db.t.Fatal(err)
	}
	db.bouncer = b
}

func (db *historyDB) down() {
	if db.bouncer != nil {
		_ = db.bouncer.Stop()
		db.bouncer = nil
	}
}

// count is the schedule's runs in the database, and the distinct rows of its run named run.
func (db *historyDB) count(schedule, run string) (runs, rows int) {
	db.t.Helper()
	if err := db.conn.QueryRow(context.Background(), `SELECT
	(SELECT count(*) FROM history.runs WHERE schedule = $1),
	(SELECT count(DISTINCT (f.target, f.scenario, f.load_point)) FROM history.figures f JOIN history.runs r ON r.id = f.run_id
		WHERE r.schedule = $1 AND r.run_name = $2)`, schedule, run).Scan(&runs, &rows); err != nil {
		db.t.Fatal(err)
	}
	return runs, rows
}

// With the history database: each succeeded run lands there with every row (36, past the
// ConfigMap's 32), the schedule's ConfigMap is neither written nor read (a forged one
// changes nothing), the analysis runs off the pass and lands in the status; a manager that
// restarts appends its runs again and stores nothing twice; the database down, Regressing
// is Unknown naming it (no password), the runs go on, the runs it lacks are not pruned and
// the pass asks again soon; back, they are appended.
func TestHistoryInTheDatabase(t *testing.T) {
	db := startHistoryDB(t)
	ctx := context.Background()
	// A forged ConfigMap of the schedule's name, as a namespace editor could write it.
	var forged historyDoc
	for i := range 100 {
		forged.Runs = append(forged.Runs, historyRun{Name: fmt.Sprintf("forged-%d", i), Time: time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC),
			Rows: []history.Row{{Key: history.Key{Target: "go-a", Scenario: "ping", LoadPoint: 100}, Values: map[string]float64{"p50": float64(100 * i)}}}})
	}
	data, _ := json.Marshal(forged)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HistoryConfigMap("indb"), Namespace: "default"}, Data: map[string]string{historyKey: string(data)}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "indb", Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 * * * *", SuccessfulRunsHistoryLimit: ptr.To[int32](1), Template: wideTemplate()}}
	h := newHarness(t, s)
	a := &Analyzer{}
	startAnalyzer(t, a)
	h.r.Database, h.r.Analyzer = &HistoryDatabase{URLFile: db.urlFile}, a
	t.Cleanup(func() { h.r.Database.Close() })
	hour := s.CreationTimestamp.Truncate(time.Hour).Add(time.Hour)
	var names []string
	// run starts and finishes the run of hour i, and returns the pass's schedule.
	run := func(i int) *benchv1.BenchmarkSchedule {
		t.Helper()
		at := hour.Add(time.Duration(i) * time.Hour)
		h.clock.SetTime(at.Add(time.Minute))
		h.reconcile()
		name := fmt.Sprintf("indb-%d", at.Unix()/60)
		names = append(names, name)
		h.measureWide(name, 500)
		return h.reconcile()
	}
	for i := range 3 {
		run(i)
		awaitAnalysis(t, a, h.key, 60*time.Second)
		got := h.reconcile()
		if got.Status.HistoryRuns != int32(i+1) {
			t.Fatalf("after run %d: %d history runs", i, got.Status.HistoryRuns)
		}
		if reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing); reg == nil || reg.Status != metav1.ConditionFalse ||
			!strings.Contains(reg.Message, fmt.Sprintf("over the %d runs", i+1)) {
			t.Fatalf("after run %d: Regressing %+v", i, reg)
		}
	}
	if runs, rows := db.count("indb", names[0]); runs != 3 || rows != 36 {
		t.Fatalf("the database holds %d runs, the first with %d rows; want 3 runs of 36 rows", runs, rows)
	}
	after := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), after); err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != cm.ResourceVersion || len(after.OwnerReferences) != 0 {
		t.Fatalf("the ConfigMap was written: %s → %s, owners %v", cm.ResourceVersion, after.ResourceVersion, after.OwnerReferences)
	}

	// A restarted manager: new caches, the same database; the runs still in the cluster are
	// appended again, stored once, and the history is analysed again.
	h.r.Database.Close()
	h.r.Database = &HistoryDatabase{URLFile: db.urlFile}
	h.clock.Step(time.Second)
	h.reconcile()
	awaitAnalysis(t, a, h.key, 60*time.Second)
	if got := h.reconcile(); got.Status.HistoryRuns != 3 {
		t.Fatalf("after a restart: %d history runs", got.Status.HistoryRuns)
	}
	if runs, _ := db.count("indb", names[0]); runs != 3 {
		t.Fatalf("after a restart the database holds %d runs, want 3", runs)
	}

	// The database down: two runs go on; neither is pruned though the limit keeps one.
	port := db.bouncer.Port
	db.down()
	h.drainEvents()
	for i := 3; i < 5; i++ {
		got := run(i)
		reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing)
		if reg == nil || reg.Status != metav1.ConditionUnknown || reg.Reason != ReasonHistoryDatabase || !strings.HasPrefix(reg.Message, "history database: ") ||
			strings.Contains(reg.Message, db.pg.Password) {
			t.Fatalf("database down, run %d: Regressing %+v", i, reg)
		}
	}
	kept := names[3:]
	for _, r := range h.runs() {
		kept = removeName(kept, r.Name)
	}
	if len(kept) != 0 {
		t.Fatalf("runs %v were pruned before their figures were stored; runs left %v", kept, names)
	}
	res, err := h.r.Reconcile(ctx, ctrl.Request{NamespacedName: h.key})
	if err != nil || res.RequeueAfter <= 0 || res.RequeueAfter > time.Minute {
		t.Fatalf("database down: %+v, %v; want a retry within a minute", res, err)
	}
	ev := strings.Join(h.drainEvents(), "\n")
	if !strings.Contains(ev, ReasonHistoryDatabase) || strings.Contains(ev, db.pg.Password) {
		t.Fatalf("events:\n%s", ev)
	}

	// Back: the two runs are appended, the history analysed, the extra run pruned.
	db.up(port)
	// A pooled connection broken by the outage may fail one more pass.
	for try := 0; ; try++ {
		h.clock.Step(time.Second)
		reg := meta.FindStatusCondition(h.reconcile().Status.Conditions, benchv1.ConditionRegressing)
		if reg.Reason != ReasonHistoryDatabase {
			break
		}
		if try == 2 {
			t.Fatalf("back: still %+v", reg)
		}
	}
	awaitAnalysis(t, a, h.key, 60*time.Second)
	got := h.reconcile()
	if runs, rows := db.count("indb", names[4]); runs != 5 || rows != 36 || got.Status.HistoryRuns != 5 {
		t.Fatalf("back: %d runs in the database (the last with %d rows), %d in the status; want 5, 36, 5", runs, rows, got.Status.HistoryRuns)
	}
	if reg := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRegressing); reg == nil || reg.Status != metav1.ConditionFalse {
		t.Fatalf("back: Regressing %+v", reg)
	}
	if left := h.runs(); len(left) != 1 || left[0].Name != names[4] {
		t.Fatalf("back: runs %v, want the newest alone", left)
	}
}

func removeName(list []string, name string) []string {
	out := list[:0:0]
	for _, n := range list {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}
