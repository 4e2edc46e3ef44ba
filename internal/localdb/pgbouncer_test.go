package localdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func TestPgBouncerBothModesAndCleanStop(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	pg, err := StartPostgres(ctx, PostgresOptions{Ports: testPorts, Parameters: Seed001Parameters()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })

	for _, mode := range []benchv1.PoolMode{benchv1.PoolModeSession, benchv1.PoolModeTransaction} {
		t.Run(string(mode), func(t *testing.T) {
			b, err := StartPgBouncer(ctx, PgBouncerOptions{Postgres: pg, PoolMode: mode, Ports: testPorts,
				Parameters: Seed001PoolerParameters()})
			if err != nil {
				t.Fatal(err)
			}
			pid := b.Pid()
			t.Cleanup(func() { _ = b.Stop() })
			if b.Port == pg.Port {
				t.Fatal("pooler and server share a port")
			}

			// Prepared statements behave as seed 001 found: in session mode they survive
			// across transactions; in transaction mode a statement prepared on one server
			// connection is missing on another once clients interleave.
			errs := preparedErrors(t, ctx, b.DSN(), 8, 40)
			// The API's Session and Transaction reach pgbouncer.ini as PgBouncer spells them.
			ini, err := os.ReadFile(filepath.Join(b.Dir, "pgbouncer.ini"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "\npool_mode = " + strings.ToLower(string(mode)) + "\n"; !strings.Contains(string(ini), want) {
				t.Fatalf("pgbouncer.ini lacks %q:\n%s", want, ini)
			}

			switch mode {
			case benchv1.PoolModeSession:
				if len(errs) > 0 {
					t.Fatalf("session mode: prepared statements failed: %v", errs[0])
				}
			case benchv1.PoolModeTransaction:
				if len(errs) == 0 {
					t.Fatal("transaction mode: expected prepared statements to fail across server connections")
				}
				if !strings.Contains(errs[0].Error(), "prepared statement") {
					t.Fatalf("transaction mode: unexpected error %v", errs[0])
				}
			}

			if err := b.Stop(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			if left := supervise.GroupMembers(pid); len(left) > 0 {
				t.Fatalf("pgbouncer left processes behind: %v", left)
			}
		})
	}
}

// preparedErrors runs queries with pgx's default statement cache (server-side prepared
// statements) from several connections at once and returns the errors.
func preparedErrors(t *testing.T, ctx context.Context, dsn string, clients, each int) []error {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect through the pooler: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close(ctx)
			for i := 0; i < each; i++ {
				var s string
				err := conn.QueryRow(ctx, "SELECT json_build_object('ok', true, 'n', $1::int)::text", i).Scan(&s)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errs
}

func TestPgBouncerBadInput(t *testing.T) {
	testenv.Long(t)
	pg := &Postgres{Port: 1, Password: "x"}
	cases := []struct {
		name string
		opts PgBouncerOptions
		want string
	}{
		{"no postgres", PgBouncerOptions{PoolMode: benchv1.PoolModeSession}, "no PostgreSQL"},
		{"bad mode", PgBouncerOptions{Postgres: pg, PoolMode: "statement"}, "want Session or Transaction"},
		{"pgbouncer's own spelling", PgBouncerOptions{Postgres: pg, PoolMode: "session"}, "want Session or Transaction"},
		{"managed setting", PgBouncerOptions{Postgres: pg, PoolMode: benchv1.PoolModeSession, Parameters: map[string]string{"listen_port": "1"}}, "managed by gauntlet"},
		{"bad setting name", PgBouncerOptions{Postgres: pg, PoolMode: benchv1.PoolModeSession, Parameters: map[string]string{"a b": "1"}}, "not a setting name"},
		{"missing binary", PgBouncerOptions{Postgres: pg, PoolMode: benchv1.PoolModeSession, Binary: "/nonexistent/pgbouncer"}, "run hack/apt.sh pgbouncer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := StartPgBouncer(context.Background(), c.opts)
			if err == nil {
				_ = b.Stop()
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

// The API's pool modes become PgBouncer's lowercase pool_mode; anything else, PgBouncer's
// own spelling included, is refused (the API never passes it).
func TestPgBouncerPoolMode(t *testing.T) {
	for mode, want := range map[benchv1.PoolMode]string{benchv1.PoolModeSession: "session", benchv1.PoolModeTransaction: "transaction"} {
		got, err := pgbouncerPoolMode(mode)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", mode, got, err, want)
		}
		b := &PgBouncer{Port: 6432, PoolMode: got, pg: &Postgres{Port: 5432}}
		if ini := b.config("/x/users.txt", nil); !strings.Contains(ini, "\npool_mode = "+want+"\n") {
			t.Errorf("%s: pgbouncer.ini has no pool_mode = %s:\n%s", mode, want, ini)
		}
	}
	for _, bad := range []benchv1.PoolMode{"", "session", "statement"} {
		if _, err := pgbouncerPoolMode(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
