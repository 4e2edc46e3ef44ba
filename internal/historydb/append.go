package historydb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// Append stores run and all its rows in one transaction. It reports false, and stores
// nothing, when a run of that UID is stored already (a manager that restarted appends
// again); that UID held by another run, or the run's name held by another UID in the same
// schedule, is an error. A run the controller could not have recorded is refused, naming
// the field.
func (s *Store) Append(ctx context.Context, run Run) (bool, error) {
	if err := checkRun(run); err != nil {
		return false, err
	}
	figures := make([][]any, 0, 4*len(run.Rows))
	seen := map[history.Key]bool{}
	for i, row := range run.Rows {
		if err := history.CheckKey(row.Key); err != nil {
			return false, fmt.Errorf("history store: run %s rows[%d]: %w", run.Name, i, err)
		}
		if seen[row.Key] {
			return false, fmt.Errorf("history store: run %s rows[%d]: row %s is there twice", run.Name, i, rowName(row.Key))
		}
		seen[row.Key] = true
		if len(row.Values) == 0 {
			return false, fmt.Errorf("history store: run %s row %s: no figure", run.Name, rowName(row.Key))
		}
		for _, f := range slices.Sorted(maps.Keys(row.Values)) {
			v := row.Values[f]
			if err := history.CheckValue(f, v); err != nil {
				return false, fmt.Errorf("history store: run %s row %s: %w", run.Name, rowName(row.Key), err)
			}
			figures = append(figures, []any{row.Target, row.Scenario, row.LoadPoint, f, int64(math.Round(v * 1000))})
		}
	}
	added := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO history.runs
	(namespace, schedule, schedule_uid, run_name, run_uid, scheduled_at, environment)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (run_uid) DO NOTHING RETURNING id`,
			run.Namespace, run.Schedule, run.ScheduleUID, run.Name, run.UID, run.Time, run.Env).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return sameRun(ctx, tx, run)
		}
		if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == uniqueViolation {
			return fmt.Errorf("run %s of schedule %s/%s is stored already with another UID than %s", run.Name, run.Namespace, run.Schedule, run.UID)
		}
		if err != nil {
			return err
		}
		rows := make([][]any, len(figures))
		for i, f := range figures {
			rows[i] = append([]any{id}, f...)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"history", "figures"},
			[]string{"run_id", "target", "scenario", "load_point", "figure", "value_milli"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		added = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("history store: appending run %s of %s/%s: %w", run.Name, run.Namespace, run.Schedule, err)
	}
	return added, nil
}

// sameRun checks that the run stored under run.UID is run: a UID is a run's for good.
func sameRun(ctx context.Context, tx pgx.Tx, run Run) error {
	var ns, sched, name string
	if err := tx.QueryRow(ctx, "SELECT namespace, schedule, run_name FROM history.runs WHERE run_uid = $1", run.UID).Scan(&ns, &sched, &name); err != nil {
		return err
	}
	if ns != run.Namespace || sched != run.Schedule || name != run.Name {
		return fmt.Errorf("UID %s is stored for run %s of schedule %s/%s", run.UID, name, ns, sched)
	}
	return nil
}

// checkRun refuses a run without the identities the store keys it by.
func checkRun(run Run) error {
	for _, f := range []struct{ name, value string }{{"namespace", run.Namespace}, {"schedule", run.Schedule},
		{"schedule UID", run.ScheduleUID}, {"UID", run.UID}} {
		if f.value == "" {
			return fmt.Errorf("history store: run %q: %s is empty", run.Name, f.name)
		}
	}
	switch err := history.CheckRunName(run.Name); {
	case err != nil:
		return fmt.Errorf("history store: %w", err)
	case run.Time.IsZero():
		return fmt.Errorf("history store: run %s: scheduled time is not set", run.Name)
	case len(run.Env) > history.MaxEnvironment:
		return fmt.Errorf("history store: run %s: environment is %d bytes, more than %d", run.Name, len(run.Env), history.MaxEnvironment)
	case len(run.Rows) == 0:
		return fmt.Errorf("history store: run %s: no rows", run.Name)
	}
	return nil
}

// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"
