package historydb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// testPorts keeps development runs inside the loopback range reserved for this work.
var testPorts = loopback.PortRange{Lo: 18000, Hi: 18999}

var base = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)

// startStore starts a fresh PostgreSQL (the local mode's, durable defaults) and opens the
// store on it as the bench user; it returns the store and a connection to forge rows with.
func startStore(t testing.TB) (*Store, *pgx.Conn, *localdb.Postgres) {
	t.Helper()
	testenv.Long(t)
	ctx := context.Background()
	pg, err := localdb.StartPostgres(ctx, localdb.PostgresOptions{Ports: testPorts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	s, err := Open(ctx, pg.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	conn, err := pgx.Connect(ctx, pg.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	return s, conn, pg
}

// nightly is run i of schedule sched: targets × (lookup, ping) × load points 100 and 200,
// and each target's ping capacity.
func nightly(sched string, i, targets int) Run {
	r := Run{Namespace: "bench", Schedule: sched, ScheduleUID: "uid-" + sched, Name: fmt.Sprintf("%s-%03d", sched, i),
		UID: fmt.Sprintf("uid-%s-%03d", sched, i), Time: base.Add(time.Duration(i) * 24 * time.Hour), Env: "node=n2-standard-8"}
	// In row order (target, scenario, load point), as history.RunRows gives them.
	for t := range targets {
		for _, sc := range []string{"lookup", "ping"} {
			if sc == "ping" {
				r.Rows = append(r.Rows, history.Row{Key: history.Key{Target: fmt.Sprintf("t%02d", t), Scenario: sc},
					Values: map[string]float64{history.FigureCapacity: 2345}})
			}
			for _, lp := range []int32{100, 200} {
				r.Rows = append(r.Rows, history.Row{Key: history.Key{Target: fmt.Sprintf("t%02d", t), Scenario: sc, LoadPoint: lp},
					Values: map[string]float64{history.FigureP50: float64(500 + i), history.FigureP99: 1500, history.FigureCPU: 80.125 + float64(t)}})
			}
		}
	}
	return r
}

func TestStore(t *testing.T) {
	s, conn, pg := startStore(t)
	ctx := context.Background()

	// Appended out of order, each with 50 rows (past the ConfigMap's 32); loaded in time
	// order with every row and value as appended (CPU's 80.125 µs survives the integers).
	t.Run("append and load", func(t *testing.T) {
		want := []Run{nightly("a", 2, 10), nightly("a", 0, 10), nightly("a", 1, 10)}
		for _, r := range want {
			if added, err := s.Append(ctx, r); err != nil || !added {
				t.Fatalf("append %s: %v, %v", r.Name, added, err)
			}
		}
		got, err := s.Load(ctx, "bench", "a", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Name != "a-000" || got[1].Name != "a-001" || got[2].Name != "a-002" {
			t.Fatalf("runs %v, want a-000, a-001, a-002", names(got))
		}
		w := want[1]
		if g := got[0]; g.UID != w.UID || g.ScheduleUID != w.ScheduleUID || !g.Time.Equal(w.Time) || g.Time.Location() != time.UTC || g.Env != w.Env || len(g.Rows) != 50 {
			t.Fatalf("got %+v, want %+v", g, w)
		}
		for i, row := range got[0].Rows {
			wr := w.Rows[i]
			if row.Key != wr.Key || fmt.Sprint(row.Values) != fmt.Sprint(wr.Values) {
				t.Fatalf("row %d: %v %v, want %v %v", i, row.Key, row.Values, wr.Key, wr.Values)
			}
		}
		if since, err := s.Load(ctx, "bench", "a", base.Add(24*time.Hour)); err != nil || len(since) != 2 || since[0].Name != "a-001" {
			t.Fatalf("since a-001: %v, %v", names(since), err)
		}
	})

	// A manager that restarts appends its runs again: nothing is duplicated.
	t.Run("re-append", func(t *testing.T) {
		r := nightly("a", 1, 10)
		added, err := s.Append(ctx, r)
		if err != nil || added {
			t.Fatalf("re-append: added %v, %v", added, err)
		}
		var runs, figures int
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM history.runs WHERE schedule = 'a'),
			(SELECT count(*) FROM history.figures f JOIN history.runs r ON r.id = f.run_id WHERE r.schedule = 'a')`).Scan(&runs, &figures); err != nil {
			t.Fatal(err)
		}
		if runs != 3 || figures != 3*10*(4*3+1) {
			t.Fatalf("%d runs, %d figures after a re-append, want 3, %d", runs, figures, 3*10*13)
		}
		other := r
		other.UID = "uid-other"
		if _, err := s.Append(ctx, other); err == nil || !strings.Contains(err.Error(), "run a-001 of schedule bench/a is stored already with another UID") {
			t.Fatalf("same name, new UID: %v", err)
		}
		stolen := nightly("a", 7, 1)
		stolen.UID = r.UID
		if _, err := s.Append(ctx, stolen); err == nil || !strings.Contains(err.Error(), "UID uid-a-001 is stored for run a-001") {
			t.Fatalf("same UID, another run: %v", err)
		}
	})

	t.Run("bad runs refused", func(t *testing.T) {
		for _, c := range []struct {
			name string
			edit func(*Run)
			want string
		}{
			{"no namespace", func(r *Run) { r.Namespace = "" }, `run "b-000": namespace is empty`},
			{"no UID", func(r *Run) { r.UID = "" }, `run "b-000": UID is empty`},
			{"no schedule UID", func(r *Run) { r.ScheduleUID = "" }, "schedule UID is empty"},
			{"no name", func(r *Run) { r.Name = "" }, "run name is empty"},
			{"no time", func(r *Run) { r.Time = time.Time{} }, "run b-000: scheduled time is not set"},
			{"long environment", func(r *Run) { r.Env = strings.Repeat("e", 1025) }, "environment is 1025 bytes, more than 1024"},
			{"no rows", func(r *Run) { r.Rows = nil }, "run b-000: no rows"},
			{"twice the same row", func(r *Run) { r.Rows = append(r.Rows, r.Rows[0]) }, "run b-000 rows[5]: row t00/lookup@100 is there twice"},
			{"negative load point", func(r *Run) { r.Rows[1].LoadPoint = -5 }, "run b-000 rows[1]: row load point -5 is negative"},
			{"unknown figure", func(r *Run) { r.Rows[0].Values["p42"] = 1 }, `run b-000 row t00/lookup@100: figure "p42" is not one of`},
			{"negative value", func(r *Run) { r.Rows[2].Values[history.FigureCapacity] = -3 }, "run b-000 row t00/ping: capacity -3 is negative"},
			{"no figure", func(r *Run) { r.Rows[3].Values = nil }, "run b-000 row t00/ping@100: no figure"},
		} {
			r := nightly("b", 0, 1)
			c.edit(&r)
			if _, err := s.Append(ctx, r); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
		}
		if got, err := s.Load(ctx, "bench", "b", time.Time{}); err != nil || len(got) != 0 {
			t.Fatalf("a refused run was stored: %v, %v", names(got), err)
		}
	})

	// Whoever can write the database could write anything: each forged value makes Load
	// fail, naming the run and the row, rather than be analysed or dropped silently.
	t.Run("forged rows refused", func(t *testing.T) {
		for i, c := range []struct {
			forge, want string
		}{
			{"UPDATE history.figures SET value_milli = -1000 WHERE figure = 'p50' AND load_point = 200 AND scenario = 'ping'", "run c0-000 row t00/ping@200: p50 -1 is negative"},
			{"UPDATE history.figures SET value_milli = 1000000000000000000 WHERE figure = 'p99' AND load_point = 100 AND scenario = 'lookup'", "run c1-000 row t00/lookup@100: p99 1e+15 is not below 1e+15"},
			{"UPDATE history.figures SET figure = 'bogus' WHERE figure = 'capacity'", `run c2-000 row t00/ping: figure "bogus" is not one of`},
			{"UPDATE history.figures SET load_point = -1 WHERE figure = 'capacity'", "run c3-000: row load point -1 is negative"},
			{"UPDATE history.figures SET target = '' WHERE figure = 'capacity'", "run c4-000: row target is empty"},
			{"DELETE FROM history.figures", "run c5-000 has no rows"},
			{"UPDATE history.runs SET environment = repeat('e', 2000)", "run c6-000: environment is 2000 bytes"},
		} {
			sched := fmt.Sprintf("c%d", i)
			if _, err := s.Append(ctx, nightly(sched, 0, 1)); err != nil {
				t.Fatal(err)
			}
			forge := strings.Replace(c.forge, " WHERE ", " WHERE run_id IN (SELECT id FROM history.runs WHERE schedule = '"+sched+"') AND ", 1)
			if !strings.Contains(forge, "WHERE") {
				forge += " WHERE " + map[bool]string{true: "id", false: "run_id"}[strings.Contains(forge, "history.runs")] +
					" IN (SELECT id FROM history.runs WHERE schedule = '" + sched + "')"
			}
			if tag, err := conn.Exec(ctx, forge); err != nil || tag.RowsAffected() == 0 {
				t.Fatalf("%s: %v, %v", forge, tag, err)
			}
			if got, err := s.Load(ctx, "bench", sched, time.Time{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: loaded %v, %v, want %q", forge, names(got), err, c.want)
			}
		}
	})

	// A store whose constraints someone dropped: a figure stored twice, a run name twice.
	t.Run("altered store refused", func(t *testing.T) {
		for _, q := range []string{"ALTER TABLE history.figures DROP CONSTRAINT figures_pkey",
			"ALTER TABLE history.runs DROP CONSTRAINT runs_namespace_schedule_run_name_key"} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if _, err := s.Append(ctx, nightly("d", 0, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO history.figures SELECT * FROM history.figures
			WHERE run_id = (SELECT id FROM history.runs WHERE schedule = 'd') AND figure = 'p99' AND scenario = 'lookup' AND load_point = 200`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(ctx, "bench", "d", time.Time{}); err == nil || !strings.Contains(err.Error(), "run d-000 row t00/lookup@200: p99 is stored twice") {
			t.Fatalf("duplicated figure: %v", err)
		}
		twice := nightly("e", 0, 1)
		if _, err := s.Append(ctx, twice); err != nil {
			t.Fatal(err)
		}
		twice.UID, twice.Time = "uid-e-again", twice.Time.Add(time.Hour)
		if _, err := s.Append(ctx, twice); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(ctx, "bench", "e", time.Time{}); err == nil || !strings.Contains(err.Error(), "run e-000 is stored twice") {
			t.Fatalf("duplicated run: %v", err)
		}
	})

	t.Run("prune", func(t *testing.T) {
		n, err := s.Prune(ctx, "bench", "a", base.Add(2*24*time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d, %v, want 2", n, err)
		}
		got, err := s.Load(ctx, "bench", "a", time.Time{})
		if err != nil || len(got) != 1 || got[0].Name != "a-002" {
			t.Fatalf("after prune: %v, %v", names(got), err)
		}
		var orphans int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM history.figures f WHERE NOT EXISTS (SELECT 1 FROM history.runs r WHERE r.id = f.run_id)").Scan(&orphans); err != nil || orphans != 0 {
			t.Fatalf("%d figures of pruned runs left, %v", orphans, err)
		}
	})

	// Opening again migrates nothing and keeps the runs; a newer schema is refused.
	t.Run("schema", func(t *testing.T) {
		again, err := Open(ctx, pg.DSN())
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		got, err := again.Load(ctx, "bench", "a", time.Time{})
		again.Close()
		if err != nil || len(got) != 1 {
			t.Fatalf("after a second open: %v, %v", names(got), err)
		}
		if _, err := conn.Exec(ctx, "UPDATE history.schema_version SET version = 2"); err != nil {
			t.Fatal(err)
		}
		if newer, err := Open(ctx, pg.DSN()); err == nil || !strings.Contains(err.Error(), "schema version 2 is newer than this operator's 1") {
			if newer != nil {
				newer.Close()
			}
			t.Fatalf("newer schema: %v", err)
		}
		if _, err := Open(ctx, "postgres://bench@127.0.0.1:1/bench?connect_timeout=bogus"); err == nil || !strings.Contains(err.Error(), "history store: dsn") {
			t.Fatalf("bad dsn: %v", err)
		}
	})
}

func names(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.Name
	}
	return out
}
