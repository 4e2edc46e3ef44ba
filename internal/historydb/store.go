package historydb

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// Store is a schedule history store over a connection pool.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to the database at dsn (a PostgreSQL URL or key=value string), migrates the
// schema and returns the store; Close releases it.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("history store: dsn: %w", err)
	}
	return open(ctx, cfg)
}

// open connects the pool and migrates the schema.
func open(ctx context.Context, cfg *pgxpool.Config) (*Store, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("history store: %w", err)
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool}, nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Run is one run of a schedule's history, as the ConfigMap keeps it (its name, scheduled
// time, environment and rows of figures), with the identities a shared store needs.
type Run struct {
	Namespace   string
	Schedule    string
	ScheduleUID string
	Name        string
	// UID is the BenchmarkRun's: appending the same UID again stores nothing.
	UID string
	// Time is the run's scheduled time (stored to the microsecond, read back in UTC).
	Time time.Time
	// Env is the run's environment in one line (compare.EnvironmentKey), at most
	// history.MaxEnvironment bytes.
	Env string
	// Rows are every row's figures of record, in the figures' units (history.Row).
	Rows []history.Row
}

// History is the run as history.Analyze reads it.
func (r Run) History() history.Run {
	return history.Run{Name: r.Name, Time: r.Time, Rows: r.Rows}
}

// rowName is a row as gauntlet history prints it: target/scenario@load.
func rowName(k history.Key) string {
	s := k.Target + "/" + k.Scenario
	if k.LoadPoint != 0 {
		s += fmt.Sprintf("@%d", k.LoadPoint)
	}
	return s
}
