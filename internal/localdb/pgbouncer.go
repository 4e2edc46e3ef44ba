package localdb

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// Seed001PoolerParameters is seed 001's PgBouncer sizing.
func Seed001PoolerParameters() map[string]string {
	return map[string]string{"default_pool_size": "50", "max_client_conn": "500"}
}

// PgBouncerOptions configures a local PgBouncer in front of a local PostgreSQL.
type PgBouncerOptions struct {
	Postgres *Postgres
	// PoolMode is spec.database.pooler.poolMode, Session or Transaction (statement breaks
	// multi-statement transactions and is not offered); pgbouncer.ini gets PgBouncer's
	// lowercase spelling.
	PoolMode benchv1.PoolMode
	// Parameters are extra [pgbouncer] settings such as default_pool_size.
	Parameters map[string]string
	Port       int // 0: a free one in Ports
	Ports      loopback.PortRange
	// Binary is the pgbouncer program; empty: pgbouncer on PATH or /usr/sbin/pgbouncer.
	Binary string
	// CPUs, when set, pins PgBouncer to these CPUs.
	CPUs []int
}

// PgBouncer is a running PgBouncer child process.
type PgBouncer struct {
	Port     int
	PoolMode string // pool_mode as PgBouncer spells it: session or transaction
	supervise.Daemon

	pg *Postgres
}

// managedPoolerSettings are written by StartPgBouncer itself.
var managedPoolerSettings = []string{"listen_addr", "listen_port", "unix_socket_dir", "auth_type",
	"auth_file", "pool_mode", "logfile", "pidfile"}

var poolerSettingName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// StartPgBouncer starts PgBouncer on loopback with the bench user in its auth file and waits
// until a client gets through to PostgreSQL. On error nothing is left running.
func StartPgBouncer(ctx context.Context, opts PgBouncerOptions) (_ *PgBouncer, err error) {
	if opts.Postgres == nil {
		return nil, fmt.Errorf("pgbouncer: no PostgreSQL to pool")
	}
	mode, err := pgbouncerPoolMode(opts.PoolMode)
	if err != nil {
		return nil, err
	}
	for k, v := range opts.Parameters {
		if !poolerSettingName.MatchString(k) {
			return nil, fmt.Errorf("pgbouncer: parameter name %q is not a setting name", k)
		}
		if slices.Contains(managedPoolerSettings, k) {
			return nil, fmt.Errorf("pgbouncer: parameter %q is managed by gauntlet", k)
		}
		if v == "" || strings.ContainsAny(v, "\n\x00") {
			return nil, fmt.Errorf("pgbouncer: parameter %s has an empty or multi-line value", k)
		}
	}
	binary, err := pgbouncerBinary(opts.Binary)
	if err != nil {
		return nil, err
	}
	major, minor, err := pgbouncerVersion(binary)
	if err != nil {
		return nil, err
	}
	params, err := forVersion(opts.Parameters, major, minor)
	if err != nil {
		return nil, err
	}
	acct, err := serviceAccount()
	if err != nil {
		return nil, err
	}
	port := opts.Port
	if port == 0 {
		if port, err = loopback.FreePort(opts.Ports); err != nil {
			return nil, fmt.Errorf("pgbouncer: %w", err)
		}
	}
	b := &PgBouncer{Port: port, PoolMode: mode, pg: opts.Postgres}
	if b.Dir, err = os.MkdirTemp("", "gauntlet-pgbouncer-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = b.Stop()
		}
	}()

	// PgBouncer needs the plain password to log in to PostgreSQL with SCRAM on the client's behalf.
	users := filepath.Join(b.Dir, "userlist.txt")
	config := filepath.Join(b.Dir, "pgbouncer.ini")
	if err := os.WriteFile(users, []byte(fmt.Sprintf("%q %q\n", BenchUser, opts.Postgres.Password)), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(config, []byte(b.config(users, params)), 0o600); err != nil {
		return nil, err
	}
	if err := supervise.GiveTo(acct, b.Dir, users, config); err != nil {
		return nil, fmt.Errorf("pgbouncer: giving %s to the postgres user: %w", b.Dir, err)
	}
	// In the foreground (no -d): it stays our child, in our process group, logging to stderr.
	b.Proc, err = supervise.Start(supervise.Spec{Name: "pgbouncer " + mode, Argv: []string{binary, config},
		RunAs: acct, Dir: b.Dir, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + b.Dir}, CPUs: opts.CPUs})
	if err != nil {
		return nil, err
	}
	if err := b.waitReady(ctx, 30*time.Second); err != nil {
		return nil, err
	}
	return b, nil
}

// pgbouncerPoolMode is PgBouncer's pool_mode for the API's poolMode.
func pgbouncerPoolMode(m benchv1.PoolMode) (string, error) {
	switch m {
	case benchv1.PoolModeSession:
		return "session", nil
	case benchv1.PoolModeTransaction:
		return "transaction", nil
	}
	return "", fmt.Errorf("pgbouncer: pool mode %q: want %s or %s", m, benchv1.PoolModeSession, benchv1.PoolModeTransaction)
}

func (b *PgBouncer) config(users string, params map[string]string) string {
	var c strings.Builder
	fmt.Fprintf(&c, "[databases]\n%s = host=127.0.0.1 port=%d dbname=%s\n\n", BenchDatabase, b.pg.Port, BenchDatabase)
	fmt.Fprintf(&c, "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = %d\nunix_socket_dir =\n", b.Port)
	fmt.Fprintf(&c, "auth_type = scram-sha-256\nauth_file = %s\npool_mode = %s\n", users, b.PoolMode)
	// Drivers such as pgjdbc and psycopg send this startup parameter; PgBouncer would refuse it.
	c.WriteString("ignore_startup_parameters = extra_float_digits\n")
	for _, k := range slices.Sorted(maps.Keys(params)) {
		fmt.Fprintf(&c, "%s = %s\n", k, params[k])
	}
	return c.String()
}

func pgbouncerBinary(binary string) (string, error) {
	if binary == "" {
		if p, err := exec.LookPath("pgbouncer"); err == nil {
			binary = p
		} else {
			binary = "/usr/sbin/pgbouncer"
		}
	}
	if !isExecutable(binary) {
		return "", fmt.Errorf("pgbouncer not found (%s): run hack/apt.sh pgbouncer", binary)
	}
	return binary, nil
}

// waitReady polls until a query goes through the pooler to PostgreSQL.
func (b *PgBouncer) waitReady(ctx context.Context, timeout time.Duration) error {
	return b.Proc.WaitReady(ctx, "pgbouncer", timeout, b.ping)
}

func (b *PgBouncer) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, b.DSN())
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	// Simple protocol: no prepared statement, so this works in any pool mode.
	_, err = c.PgConn().Exec(ctx, "SELECT 1").ReadAll()
	return err
}

// DSN is the bench user's URL to the bench database through the pooler.
func (b *PgBouncer) DSN() string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", BenchUser, b.pg.Password, b.Port, BenchDatabase)
}

// Stop shuts PgBouncer down (SIGINT: safe shutdown, which exits 0 once server connections
// are idle; SIGTERM would exit 1) and removes its folder.
func (b *PgBouncer) Stop() error {
	return b.Daemon.Stop(syscall.SIGINT, 10*time.Second)
}
