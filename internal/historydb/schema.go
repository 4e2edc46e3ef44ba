package historydb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SchemaVersion is the version of the tables this package reads and writes.
const SchemaVersion = 1

// schemaLock serialises migrations of managers that start together (CREATE ... IF NOT
// EXISTS alone races on the catalog).
const schemaLock = "gauntlet history schema"

// tables is the version 1 schema, in a PostgreSQL schema of its own.
//   - runs: one row per appended run; the unique run_uid makes a re-append a no-op, and
//     (namespace, schedule, scheduled_at) serves "one schedule's runs in time order".
//   - figures: one row per run × target × scenario × load point × figure, the value in
//     thousandths of the figure's unit. Its primary key, led by run_id, serves "one series
//     over a time range": the runs index picks the range, then one key lookup per run.
const tables = `
CREATE TABLE IF NOT EXISTS history.runs (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	namespace    text NOT NULL,
	schedule     text NOT NULL,
	schedule_uid text NOT NULL,
	run_name     text NOT NULL,
	run_uid      text NOT NULL UNIQUE,
	scheduled_at timestamptz NOT NULL,
	environment  text NOT NULL DEFAULT '',
	appended_at  timestamptz NOT NULL DEFAULT now(),
	UNIQUE (namespace, schedule, run_name)
);
CREATE INDEX IF NOT EXISTS runs_schedule_time ON history.runs (namespace, schedule, scheduled_at);
CREATE TABLE IF NOT EXISTS history.figures (
	run_id      bigint NOT NULL REFERENCES history.runs (id) ON DELETE CASCADE,
	target      text NOT NULL,
	scenario    text NOT NULL,
	load_point  integer NOT NULL,
	figure      text NOT NULL,
	value_milli bigint NOT NULL,
	PRIMARY KEY (run_id, target, scenario, load_point, figure)
);`

// Migrate creates the schema if it is missing and refuses one newer than SchemaVersion (an
// older operator must not write tables a newer one changed). Safe to run at every start.
func Migrate(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("history store: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", schemaLock); err != nil {
		return fmt.Errorf("history store: locking the schema: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS history;
CREATE TABLE IF NOT EXISTS history.schema_version (
	only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
	version  integer NOT NULL
)`); err != nil {
		return fmt.Errorf("history store: creating the schema: %w", err)
	}
	var version int
	err = tx.QueryRow(ctx, "SELECT version FROM history.schema_version").Scan(&version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return fmt.Errorf("history store: reading the schema version: %w", err)
	case version > SchemaVersion:
		return fmt.Errorf("history store: schema version %d is newer than this operator's %d: upgrade the operator", version, SchemaVersion)
	}
	if _, err := tx.Exec(ctx, tables); err != nil {
		return fmt.Errorf("history store: creating the tables: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO history.schema_version (version) VALUES ($1)
ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version`, SchemaVersion); err != nil {
		return fmt.Errorf("history store: writing the schema version: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("history store: %w", err)
	}
	return nil
}
