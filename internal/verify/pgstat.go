package verify

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// statements matches each DB endpoint's statement in pg_stat_statements, whose text has its
// constants replaced by $n (so 'ok' is $1); case-insensitive POSIX regular expressions.
var statements = map[preset.Endpoint]string{
	preset.DBPing: `json_build_object\(\s*\$1\s*,\s*\$2\s*,\s*\$3\s*,\s*\$4\s*\)`,
	// PostgreSQL 14+ parses extract(epoch from x) as extract('epoch', x): epoch becomes $2.
	preset.DBTime:      `json_build_object\(\s*\$1\s*,\s*extract\(\s*(epoch|\$2)\s+from\s+now\(\s*\)\s*\)`,
	preset.DBDocument:  `from\s+documents\s+where\s+id\s*=`,
	preset.DBDocuments: `from\s+items\s+order\s+by\s+id`,
}

// statCounter reads pg_stat_statements and the database clock over a direct connection.
type statCounter struct {
	conn     *pgx.Conn
	password string
}

func newStatCounter(ctx context.Context, dsn string) (*statCounter, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("admin DSN: %s", redactErr(err, dsnPassword(dsn)))
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the admin DSN: %s", redactErr(err, cfg.Password))
	}
	s := &statCounter{conn: conn, password: cfg.Password}
	if _, err := s.calls(cctx, "^$"); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("reading pg_stat_statements (is it in shared_preload_libraries and created with CREATE EXTENSION?): %v", err)
	}
	return s, nil
}

func (s *statCounter) close() { _ = s.conn.Close(context.Background()) }

// calls sums the calls of every statement matching pattern, for every user and database.
func (s *statCounter) calls(ctx context.Context, pattern string) (int64, error) {
	var n int64
	err := s.conn.QueryRow(ctx,
		`SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE query ~* $1`, pattern).Scan(&n)
	if err != nil {
		return 0, redactErr(err, s.password)
	}
	return n, nil
}

// now reads the database clock, as db-time does.
func (s *statCounter) now(ctx context.Context) (time.Time, error) {
	var sec int64
	if err := s.conn.QueryRow(ctx, `SELECT extract(epoch from now())::bigint`).Scan(&sec); err != nil {
		return time.Time{}, redactErr(err, s.password)
	}
	return time.Unix(sec, 0), nil
}

// tracker measures how many times an endpoint's statement ran during its checks.
type tracker struct {
	r      *run
	e      *endpoint
	key    preset.Endpoint
	before int64
	err    error
}

func (r *run) track(ctx context.Context, e *endpoint, key preset.Endpoint) *tracker {
	t := &tracker{r: r, e: e, key: key}
	if r.stats != nil {
		t.before, t.err = r.stats.calls(ctx, statements[key])
	}
	return t
}

// done checks that the statement ran at least once per successful request.
func (t *tracker) done(ctx context.Context, requests int) {
	const name = "reaches the database (pg_stat_statements calls)"
	switch {
	case t.r.stats == nil && t.r.dbErr != nil:
		t.e.add(name, false, 0, "%v", t.r.dbErr)
		return
	case t.r.stats == nil:
		t.e.skip(name, "no admin DSN given")
		return
	case t.err != nil:
		t.e.add(name, false, 0, "%v", t.err)
		return
	}
	after, err := t.r.stats.calls(ctx, statements[t.key])
	if err != nil {
		t.e.add(name, false, 0, "%v", err)
		return
	}
	t.e.add(name, requests > 0 && after-t.before >= int64(requests), 0,
		"%d successful requests; calls of the statement matching /%s/ went %d -> %d (expected a rise of at least %d)",
		requests, statements[t.key], t.before, after, requests)
}

// RedactDSN returns dsn with its password masked, for printing.
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		return u.String()
	}
	if pw := dsnPassword(dsn); pw != "" {
		return strings.ReplaceAll(dsn, pw, "xxxxx")
	}
	return dsn
}

// dsnPassword extracts the password of a URL or key=value DSN, if it parses.
func dsnPassword(dsn string) string {
	if cfg, err := pgconn.ParseConfig(dsn); err == nil {
		return cfg.Password
	}
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		pw, _ := u.User.Password()
		return pw
	}
	return ""
}

// redactErr keeps a password out of an error message, whatever the driver put in it.
func redactErr(err error, password string) error {
	if err == nil || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), password, "xxxxx"))
}
