package schedule

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/historydb"
)

// DefaultHistoryRetention is how long the database keeps a run (--history-retention): a
// year of nightly runs, and a month to compare the same season with.
const DefaultHistoryRetention = 400 * 24 * time.Hour

// ReasonHistoryDatabase: the history database could not be reached or refused a write;
// Regressing is Unknown until it is back, and the runs whose figures it lacks are kept.
const ReasonHistoryDatabase = "HistoryDatabaseUnavailable"

// HistoryDatabase keeps every schedule's history in PostgreSQL (internal/historydb) instead
// of ConfigMaps: every row of every run, for Retention, where namespace editors cannot write.
// A run is appended once, when it has succeeded (its UID keys it: a restarted manager
// appending again stores nothing); runs older than Retention are pruned after an append.
type HistoryDatabase struct {
	// URLFile holds the PostgreSQL URL (--history-database-url-file); it is read when
	// connecting, so a rotated password is picked up.
	URLFile string
	// Retention is how long a run is kept, by its scheduled time (DefaultHistoryRetention when 0).
	Retention time.Duration
	// Timeout bounds a pass's writes (10 s when 0): a database that hangs holds no worker.
	Timeout time.Duration
	// Open opens the store (historydb.OpenFile when nil).
	Open func(ctx context.Context, path string) (*historydb.Store, error)

	mu    sync.Mutex
	store *historydb.Store
	// stored holds the UIDs of runs appended or found stored: a steady pass asks nothing.
	stored sync.Map
	// analysed holds the UIDs of schedules whose history was handed to an analysis since the
	// manager started: a result lost with a restart is found again.
	analysed sync.Map
}

func (d *HistoryDatabase) retention() time.Duration {
	if d.Retention > 0 {
		return d.Retention
	}
	return DefaultHistoryRetention
}

// connect opens the store once; a failed open is tried again on the next pass.
func (d *HistoryDatabase) connect(ctx context.Context) (*historydb.Store, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.store != nil {
		return d.store, nil
	}
	open := d.Open
	if open == nil {
		open = historydb.OpenFile
	}
	s, err := open(ctx, d.URLFile)
	if err != nil {
		return nil, err
	}
	d.store = s
	return s, nil
}

// Close releases the connections.
func (d *HistoryDatabase) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.store != nil {
		d.store.Close()
		d.store = nil
	}
}

// redact is err's message with any password of the URL file taken out.
func (d *HistoryDatabase) redact(err error) string {
	return historydb.RedactFile(err.Error(), d.URLFile)
}

func (d *HistoryDatabase) record(ctx context.Context, s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun, sc *scope) (recorded, error) {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	store, err := d.connect(ctx)
	if err != nil {
		return recorded{}, err
	}
	changed := false
	for _, run := range runs {
		rows := checkedRows(history.RunRows(run))
		if _, ok := d.stored.Load(run.UID); ok || run.Status.Phase != benchv1.PhaseSucceeded || len(rows) == 0 {
			continue
		}
		added, err := store.Append(ctx, historydb.Run{Namespace: s.Namespace, Schedule: s.Name, ScheduleUID: string(s.UID),
			Name: run.Name, UID: string(run.UID), Time: scheduledAt(run).UTC(), Rows: rows,
			Env: benchv1.Clip(compare.EnvironmentKey(run.Status.Environment), history.MaxEnvironment)})
		if err != nil {
			return recorded{}, err
		}
		d.stored.Store(run.UID, true)
		changed = changed || added
	}
	since := sc.now.Add(-d.retention())
	if changed {
		if _, err := store.Prune(ctx, s.Namespace, s.Name, since); err != nil {
			return recorded{}, err
		}
	}
	_, analysed := d.analysed.Swap(s.UID, true)
	ns, name := s.Namespace, s.Name
	return recorded{changed: changed, fresh: !analysed, latest: newestRows(runs),
		load: func(ctx context.Context) ([]historyRun, error) {
			ctx, cancel := context.WithTimeout(ctx, 10*timeout)
			defer cancel()
			runs, err := store.Load(ctx, ns, name, since)
			if err != nil {
				return nil, err
			}
			out := make([]historyRun, len(runs))
			for i, r := range runs {
				out[i] = historyRun{Name: r.Name, Time: r.Time, Rows: r.Rows, Env: r.Env}
			}
			return out, nil
		}}, nil
}

// unstored names the succeeded runs whose figures the database does not hold yet: prune
// keeps them while it is down.
func (d *HistoryDatabase) unstored(runs []*benchv1.BenchmarkRun) []string {
	var out []string
	for _, run := range runs {
		if _, ok := d.stored.Load(run.UID); !ok && run.Status.Phase == benchv1.PhaseSucceeded {
			out = append(out, run.Name)
		}
	}
	return out
}

// checkedRows are the rows the store accepts (internal/history's checks): a row with an
// unknown key, or a value no run can have, is left out rather than refusing the run.
func checkedRows(rows []history.Row) []history.Row {
	seen := map[history.Key]bool{}
	out := rows[:0:0]
	for _, row := range rows {
		if seen[row.Key] || history.CheckKey(row.Key) != nil {
			continue
		}
		vals := map[string]float64{}
		for f, v := range row.Values {
			if history.CheckValue(f, v) == nil {
				vals[f] = v
			}
		}
		if len(vals) > 0 {
			seen[row.Key] = true
			out = append(out, history.Row{Key: row.Key, Values: vals})
		}
	}
	return out
}

// newestRows are the rows of the newest succeeded run with any: the figure gauges, when
// the history is not read whole.
func newestRows(runs []*benchv1.BenchmarkRun) []history.Row {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Status.Phase != benchv1.PhaseSucceeded {
			continue
		}
		if rows := checkedRows(history.RunRows(runs[i])); len(rows) > 0 {
			return rows
		}
	}
	return nil
}

// databaseDown records a failed read or write of the history database: Regressing Unknown
// naming the database and the error (its password taken out), a warning event, the runs it
// lacks kept from prune, and the pass asked again after a backoff. The runs go on.
func (r *BenchmarkScheduleReconciler) databaseDown(sc *scope, err error) {
	s := sc.schedule
	msg := benchv1.Clip("history database: "+r.Database.redact(err)+
		"; the runs go on, and those it lacks are kept until their figures are appended", 1024)
	r.Recorder.Eventf(s, nil, "Warning", ReasonHistoryDatabase, "Record", "%s", msg)
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressing, Status: metav1.ConditionUnknown,
		Reason: ReasonHistoryDatabase, Message: msg, ObservedGeneration: s.Generation})
	sc.keep = r.Database.unstored(sc.runs)
	sc.retry = r.backoff().When(client.ObjectKeyFromObject(s))
	// Analysed again once it is back: what this pass would have asked for is not lost.
	r.Database.analysed.Delete(s.UID)
}

// recovered resets the backoff after a pass that reached the database.
func (r *BenchmarkScheduleReconciler) recovered(sc *scope) {
	if r.Database != nil {
		r.backoff().Forget(client.ObjectKeyFromObject(sc.schedule))
	}
}

// backoff spaces the passes that retry the database: 1 s, doubling, at most 5 minutes.
func (r *BenchmarkScheduleReconciler) backoff() workqueue.TypedRateLimiter[types.NamespacedName] {
	r.backoffOnce.Do(func() {
		r.retries = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](time.Second, 5*time.Minute)
	})
	return r.retries
}

// store is where the schedules' histories are kept.
func (r *BenchmarkScheduleReconciler) store() historyStore {
	if r.Database != nil {
		return r.Database
	}
	return configMapStore{r}
}
