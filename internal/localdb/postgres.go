// Package localdb runs the local mode's PostgreSQL and PgBouncer as child processes on
// loopback: a fresh cluster with seed 001's bench user, database and schema, and a pooler
// in front of it. The runner starts and watches them (its services and dbhealth); they are
// kept apart from it because they need no benchmark, and test/targets starts them alone.
package localdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/jackc/pgx/v5"
)

// Names the benchmark database uses, as in the cluster (seed 001's bench user and database).
const (
	BenchUser     = "bench"
	BenchDatabase = "bench"
	adminUser     = "postgres"
)

// Seed001Parameters is seed 001's PostgreSQL profile: durability off, since the benchmark
// measures the web tier, not the disk.
func Seed001Parameters() map[string]string {
	return map[string]string{
		"fsync":              "off",
		"synchronous_commit": "off",
		"full_page_writes":   "off",
		"wal_level":          "minimal",
		"max_wal_senders":    "0", // wal_level=minimal refuses to start otherwise
		"shared_buffers":     "256MB",
		"work_mem":           "16MB",
		"max_connections":    "200",
	}
}

// PostgresOptions configures a local PostgreSQL.
type PostgresOptions struct {
	// Port to listen on (127.0.0.1); 0 picks a free one in Ports.
	Port  int
	Ports loopback.PortRange
	// Parameters are postgresql.conf settings (nil: none beyond the defaults);
	// pg_stat_statements is always added to shared_preload_libraries.
	Parameters map[string]string
	// Password of the bench user; empty makes a random one.
	Password string
	// Schema is an SQL file loaded into the bench database (targets/schema.sql); empty: none.
	Schema string
	// CPUs, when set, pins the server and its backends to these CPUs.
	CPUs []int
	// BinDir holds initdb and postgres; empty: $PG_BINDIR, else the newest
	// /usr/lib/postgresql/*/bin.
	BinDir string
}

// Postgres is a running PostgreSQL child process with a bench user and database.
type Postgres struct {
	Port             int
	Password         string // the bench user's
	supervise.Daemon        // Dir holds the data and the socket

	adminPassword string
}

var settingName = regexp.MustCompile(`^[a-z][a-z0-9_.]*$`)

// StartPostgres initialises a fresh cluster in a temporary folder, starts it on loopback,
// creates the bench user and database and loads the schema. On error nothing is left running.
func StartPostgres(ctx context.Context, opts PostgresOptions) (_ *Postgres, err error) {
	bin, err := postgresBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	params, err := postgresParameters(opts.Parameters)
	if err != nil {
		return nil, err
	}
	if opts.Schema != "" {
		if _, err := os.Stat(opts.Schema); err != nil {
			return nil, fmt.Errorf("postgres: schema: %w", err)
		}
	}
	if opts.Password != "" && strings.ContainsAny(opts.Password, "'\\\x00") {
		return nil, errors.New("postgres: the password must not contain quotes, backslashes or NUL")
	}
	acct, err := serviceAccount()
	if err != nil {
		return nil, err
	}
	port := opts.Port
	if port == 0 {
		if port, err = loopback.FreePort(opts.Ports); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
	}

	pg := &Postgres{Port: port, Password: opts.Password, adminPassword: randomSecret()}
	if pg.Password == "" {
		pg.Password = randomSecret()
	}
	// A folder of our own under /tmp: a test's t.TempDir() is root's and mode 0700, which the
	// postgres user could not enter.
	if pg.Dir, err = os.MkdirTemp("", "gauntlet-pg-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = pg.Stop()
		}
	}()
	data := filepath.Join(pg.Dir, "data")
	pwfile := filepath.Join(pg.Dir, "admin.pw")
	if err := os.WriteFile(pwfile, []byte(pg.adminPassword+"\n"), 0o600); err != nil {
		return nil, err
	}
	if err := supervise.GiveTo(acct, pg.Dir, pwfile); err != nil {
		return nil, fmt.Errorf("postgres: giving %s to the postgres user: %w", pg.Dir, err)
	}

	env := []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + pg.Dir}
	initdb := supervise.Spec{Name: "initdb", RunAs: acct, Env: env, Dir: pg.Dir, Argv: []string{
		filepath.Join(bin, "initdb"), "-D", data, "-U", adminUser, "--pwfile=" + pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
	}}
	if err := supervise.Run(initdb, 2*time.Minute); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	_ = os.Remove(pwfile)

	argv := []string{filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-k", pg.Dir, "-c", "listen_addresses=127.0.0.1"}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		argv = append(argv, "-c", k+"="+params[k])
	}
	if pg.Proc, err = supervise.Start(supervise.Spec{Name: "postgres", RunAs: acct, Env: env, Dir: pg.Dir, Argv: argv,
		LogFile: filepath.Join(pg.Dir, "postgres.log"), CPUs: opts.CPUs}); err != nil {
		return nil, err
	}
	if err := pg.waitReady(ctx, 60*time.Second); err != nil {
		return nil, err
	}
	if err := pg.setup(ctx, opts.Schema); err != nil {
		return nil, err
	}
	return pg, nil
}

// postgresBinDir finds initdb and postgres, or says how to install them.
func postgresBinDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("PG_BINDIR")
	}
	if dir == "" {
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(found, func(i, j int) bool { return pgMajor(found[i]) > pgMajor(found[j]) })
		for _, d := range found {
			if isExecutable(filepath.Join(d, "postgres")) {
				dir = d
				break
			}
		}
	}
	for _, tool := range []string{"initdb", "postgres"} {
		if dir == "" || !isExecutable(filepath.Join(dir, tool)) {
			return "", fmt.Errorf("PostgreSQL server binaries not found (looked for %s under %q, /usr/lib/postgresql/*/bin): run hack/apt.sh postgresql-15", tool, dir)
		}
	}
	return dir, nil
}

func pgMajor(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// postgresParameters validates the settings and adds pg_stat_statements to the preloads.
func postgresParameters(in map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range in {
		if !settingName.MatchString(k) {
			return nil, fmt.Errorf("postgres: parameter name %q is not a setting name", k)
		}
		if k == "port" || k == "listen_addresses" || k == "unix_socket_directories" {
			return nil, fmt.Errorf("postgres: parameter %q is managed by gauntlet", k)
		}
		if strings.ContainsAny(v, "\n\x00") || v == "" {
			return nil, fmt.Errorf("postgres: parameter %s has an empty or multi-line value", k)
		}
		out[k] = v
	}
	// wal_level=minimal (the API's default profile) refuses to start unless WAL senders are off.
	if out["wal_level"] == "minimal" && out["max_wal_senders"] == "" {
		out["max_wal_senders"] = "0"
	}
	libs := []string{}
	for _, l := range strings.Split(out["shared_preload_libraries"], ",") {
		if l = strings.TrimSpace(l); l != "" {
			libs = append(libs, l)
		}
	}
	if !slices.Contains(libs, "pg_stat_statements") {
		libs = append(libs, "pg_stat_statements")
	}
	out["shared_preload_libraries"] = strings.Join(libs, ",")
	return out, nil
}

// waitReady polls until the server accepts the admin user, or fails with the server's log.
func (pg *Postgres) waitReady(ctx context.Context, timeout time.Duration) error {
	return pg.Proc.WaitReady(ctx, "postgres", timeout, func(ctx context.Context) error {
		c, err := pg.connect(ctx, pg.adminDSN("postgres"))
		if err == nil {
			c.Close(ctx)
		}
		return err
	})
}

func (pg *Postgres) connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgx.Connect(ctx, dsn)
}

// setup creates the bench user and database and loads the schema as the superuser
// (CREATE EXTENSION pg_stat_statements needs one); bench may read every table.
func (pg *Postgres) setup(ctx context.Context, schema string) error {
	admin, err := pg.connect(ctx, pg.adminDSN("postgres"))
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer admin.Close(ctx)
	for _, stmt := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", BenchUser, pg.Password),
		fmt.Sprintf("CREATE DATABASE %s OWNER %s", BenchDatabase, BenchUser),
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("postgres: creating the bench user and database: %w", err)
		}
	}
	db, err := pg.connect(ctx, pg.adminDSN(BenchDatabase))
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer db.Close(ctx)
	sql := "CREATE EXTENSION IF NOT EXISTS pg_stat_statements;"
	if schema != "" {
		b, err := os.ReadFile(schema)
		if err != nil {
			return fmt.Errorf("postgres: schema: %w", err)
		}
		sql = string(b)
	}
	// The simple protocol runs a whole file of statements at once.
	if _, err := db.PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		return fmt.Errorf("postgres: loading %s: %w", schema, err)
	}
	grant := fmt.Sprintf("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s", BenchUser)
	if _, err := db.Exec(ctx, grant); err != nil {
		return fmt.Errorf("postgres: %s: %w", grant, err)
	}
	return nil
}

// DSN is the bench user's URL to the bench database, directly (no pooler).
func (pg *Postgres) DSN() string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", BenchUser, pg.Password, pg.Port, BenchDatabase)
}

// AdminDSN is the superuser's URL to the bench database, for pg_stat_statements.
func (pg *Postgres) AdminDSN() string { return pg.adminDSN(BenchDatabase) }

func (pg *Postgres) adminDSN(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", adminUser, pg.adminPassword, pg.Port, db)
}

// Stop shuts the server down (fast shutdown: SIGINT disconnects clients and checkpoints)
// and removes its folder. Safe to call twice.
func (pg *Postgres) Stop() error {
	return pg.Daemon.Stop(syscall.SIGINT, 30*time.Second)
}

func randomSecret() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
