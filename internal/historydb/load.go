package historydb

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// Load returns the schedule's runs scheduled at or after since, oldest first (appended
// order among runs of the same time), each with its rows in row order. Every value read is
// checked as the ConfigMap reader checks it (internal/history's checks: names, load
// points, figure names, values finite in [0, 10^15)), and a run name seen twice, a row's
// figure stored twice or a run without rows is refused too: the error names the run and
// the row. Nothing is dropped silently.
func (s *Store) Load(ctx context.Context, namespace, schedule string, since time.Time) ([]Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.id, r.schedule_uid, r.run_name, r.run_uid, r.scheduled_at, r.environment,
	f.target, f.scenario, f.load_point, f.figure, f.value_milli
FROM history.runs r LEFT JOIN history.figures f ON f.run_id = r.id
WHERE r.namespace = $1 AND r.schedule = $2 AND r.scheduled_at >= $3
ORDER BY r.scheduled_at, r.id, f.target, f.scenario, f.load_point, f.figure`, namespace, schedule, since)
	if err != nil {
		return nil, fmt.Errorf("history store: loading %s/%s: %w", namespace, schedule, err)
	}
	r := reader{names: map[string]bool{}, ns: namespace, schedule: schedule}
	var rec record
	_, err = pgx.ForEachRow(rows, []any{&rec.id, &rec.scheduleUID, &rec.name, &rec.uid, &rec.time, &rec.env,
		&rec.target, &rec.scenario, &rec.loadPoint, &rec.figure, &rec.milli}, func() error { return r.add(rec) })
	if err == nil {
		err = r.finish()
	}
	if err != nil {
		return nil, fmt.Errorf("history store: loading %s/%s: %w", namespace, schedule, err)
	}
	return r.runs, nil
}

// record is one line of Load's query: a run and one of its figures (none: NULLs).
type record struct {
	id                          int64
	scheduleUID, name, uid, env string
	time                        time.Time
	target, scenario, figure    *string
	loadPoint                   *int32
	milli                       *int64
}

// reader groups the lines into runs and rows, checking each.
type reader struct {
	ns, schedule string
	runs         []Run
	lastID       int64
	names        map[string]bool
}

func (r *reader) add(rec record) error {
	if len(r.runs) == 0 || rec.id != r.lastID {
		if err := r.finish(); err != nil {
			return err
		}
		if err := history.CheckRunName(rec.name); err != nil {
			return fmt.Errorf("run id %d: %w", rec.id, err)
		}
		if r.names[rec.name] {
			return fmt.Errorf("run %s is stored twice", rec.name)
		}
		if len(rec.env) > history.MaxEnvironment {
			return fmt.Errorf("run %s: environment is %d bytes, more than %d", rec.name, len(rec.env), history.MaxEnvironment)
		}
		r.names[rec.name], r.lastID = true, rec.id
		r.runs = append(r.runs, Run{Namespace: r.ns, Schedule: r.schedule, ScheduleUID: rec.scheduleUID, Name: rec.name,
			UID: rec.uid, Time: rec.time.UTC(), Env: rec.env})
	}
	if rec.figure == nil {
		return nil // a run without figures: finish refuses it
	}
	run := &r.runs[len(r.runs)-1]
	k := history.Key{Target: *rec.target, Scenario: *rec.scenario, LoadPoint: *rec.loadPoint}
	if err := history.CheckKey(k); err != nil {
		return fmt.Errorf("run %s: %w", run.Name, err)
	}
	v := float64(*rec.milli) / 1000
	if err := history.CheckValue(*rec.figure, v); err != nil {
		return fmt.Errorf("run %s row %s: %w", run.Name, rowName(k), err)
	}
	// The query orders by row: a row's figures are together, so a row met before is the last.
	n := len(run.Rows)
	if n == 0 || run.Rows[n-1].Key != k {
		run.Rows = append(run.Rows, history.Row{Key: k, Values: map[string]float64{}})
		n++
	}
	row := run.Rows[n-1]
	if _, dup := row.Values[*rec.figure]; dup {
		return fmt.Errorf("run %s row %s: %s is stored twice", run.Name, rowName(k), *rec.figure)
	}
	row.Values[*rec.figure] = v
	return nil
}

// finish checks the run read last: it must have rows.
func (r *reader) finish() error {
	if n := len(r.runs); n > 0 && len(r.runs[n-1].Rows) == 0 {
		return fmt.Errorf("run %s has no rows", r.runs[n-1].Name)
	}
	return nil
}
