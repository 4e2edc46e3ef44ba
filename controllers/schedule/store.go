package schedule

import (
	"context"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// historyStore keeps a schedule's history: the ConfigMap the schedule owns
// (configMapStore, the default) or the manager's PostgreSQL (HistoryDatabase).
type historyStore interface {
	// record keeps the figures of the schedule's succeeded runs not kept yet.
	record(ctx context.Context, s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun, sc *scope) (recorded, error)
}

// recorded is what a pass's recording found.
type recorded struct {
	// changed: runs were added to the history, or dropped from it.
	changed bool
	// held is the whole history when recording read it (the ConfigMap); nil when it did not
	// (the database: the analysis reads it).
	held []historyRun
	// load reads the history to analyse, oldest first, every value checked.
	load func(ctx context.Context) ([]historyRun, error)
	// latest is the newest run's rows: the schedule's figure gauges.
	latest []history.Row
	// fresh: the history is not known to have been analysed since this manager started,
	// though nothing changed (the database: a result lost with a restarted manager).
	fresh bool
}

// configMapStore is the ConfigMap <schedule>-history (history.go's record).
type configMapStore struct{ r *BenchmarkScheduleReconciler }

func (c configMapStore) record(ctx context.Context, s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun, _ *scope) (recorded, error) {
	h, changed, err := c.r.record(ctx, s, runs)
	if err != nil {
		return recorded{}, err
	}
	return recorded{changed: changed, held: h, latest: latestRows(h),
		load: func(context.Context) ([]historyRun, error) { return h, nil }}, nil
}
