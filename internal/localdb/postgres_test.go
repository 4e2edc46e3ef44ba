package localdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// testPorts keeps development runs inside the loopback range reserved for this work.
var testPorts = loopback.PortRange{Lo: 18000, Hi: 18999}

func TestPostgresSeedProfileSchemaAndCleanStop(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	pg, err := StartPostgres(ctx, PostgresOptions{
		Ports:      testPorts,
		Parameters: Seed001Parameters(),
		Schema:     filepath.Join(testenv.Root(), "targets", "schema.sql"),
	})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := pg.Pid(), pg.Dir
	t.Cleanup(func() { _ = pg.Stop() })

	conn, err := pgx.Connect(ctx, pg.DSN())
	if err != nil {
		t.Fatalf("bench user cannot connect: %v", err)
	}
	var docs, items int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM items)").Scan(&docs, &items); err != nil {
		t.Fatal(err)
	}
	if docs != 10000 || items != 1000 {
		t.Fatalf("schema not loaded: %d documents, %d items", docs, items)
	}
	conn.Close(ctx)

	admin, err := pgx.Connect(ctx, pg.AdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	if err := admin.QueryRow(ctx, "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements").Scan(&calls); err != nil {
		t.Fatalf("pg_stat_statements unreadable by the admin DSN: %v", err)
	}
	// Settings some of which only a privileged role may read.
	for setting, want := range map[string]string{
		"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "wal_level": "minimal",
		"shared_buffers": "256MB", "work_mem": "16MB", "max_connections": "200",
		"shared_preload_libraries": "pg_stat_statements",
	} {
		var got string
		if err := admin.QueryRow(ctx, "SELECT current_setting($1)", setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", setting, got, want)
		}
	}
	admin.Close(ctx)

	if _, err := pgx.Connect(ctx, strings.Replace(pg.DSN(), pg.Password, "wrong", 1)); err == nil {
		t.Fatal("a wrong password was accepted: host auth must be scram")
	}

	if err := pg.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if left := supervise.GroupMembers(pid); len(left) > 0 {
		t.Fatalf("postgres left processes behind: %v", left)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data folder %s not removed (%v)", dir, err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if c, err := pgx.Connect(ctx2, pg.DSN()); err == nil {
		c.Close(ctx)
		t.Fatal("server still answers after Stop")
	}
	if err := pg.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestPostgresBadInput(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	cases := []struct {
		name string
		opts PostgresOptions
		want string
	}{
		{"missing binaries", PostgresOptions{BinDir: "/nonexistent/bin"}, "run hack/apt.sh postgresql-15"},
		{"bad parameter name", PostgresOptions{Parameters: map[string]string{"fsync; DROP": "off"}}, "is not a setting name"},
		{"managed parameter", PostgresOptions{Parameters: map[string]string{"port": "5432"}}, "managed by gauntlet"},
		{"empty value", PostgresOptions{Parameters: map[string]string{"fsync": ""}}, "empty or multi-line"},
		{"missing schema", PostgresOptions{Schema: "/nonexistent/schema.sql"}, "no such file"},
		{"quote in password", PostgresOptions{Password: "a'b"}, "must not contain quotes"},
		{"bad port range", PostgresOptions{Ports: loopback.PortRange{Lo: 9, Hi: 2}}, "not within 1-65535"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pg, err := StartPostgres(ctx, c.opts)
			if err == nil {
				_ = pg.Stop()
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestPostgresBadSettingShowsTheServerLog(t *testing.T) {
	testenv.Long(t)
	before := len(tempDirs(t))
	_, err := StartPostgres(context.Background(), PostgresOptions{Ports: testPorts,
		Parameters: map[string]string{"shared_buffers": "lots"}})
	if err == nil || !strings.Contains(err.Error(), "shared_buffers") {
		t.Fatalf("err = %v, want the server's complaint about shared_buffers", err)
	}
	if after := len(tempDirs(t)); after != before {
		t.Fatalf("a failed start left its folder behind (%d -> %d gauntlet-pg-* folders)", before, after)
	}
}

func tempDirs(t *testing.T) []string {
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "gauntlet-pg-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
