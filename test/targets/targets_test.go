// Package targets_test runs every target under targets/ on this machine against a real
// PostgreSQL and PgBouncer and checks it against the contract (the targets tier of docs/testing.md).
//
//	go test ./test/targets/ -v -timeout 40m
package targets_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// ports keeps everything this test starts inside one loopback range.
var ports = loopback.PortRange{Lo: 18000, Hi: 18999}

// The database side, shared by every target: one PostgreSQL with seed 001's profile and a
// pooler in each mode seed 001 compares.
var (
	repoRoot    string
	pg          *localdb.Postgres
	session     *localdb.PgBouncer
	transaction *localdb.PgBouncer
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that need what the setup starts call testenv.Long
		os.Exit(m.Run())
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	repoRoot = testenv.Root()
	ctx := context.Background()
	var err error
	pg, err = localdb.StartPostgres(ctx, localdb.PostgresOptions{Ports: ports,
		Parameters: localdb.Seed001Parameters(), Schema: filepath.Join(repoRoot, "targets", "schema.sql")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "test/targets:", err)
		return 1
	}
	defer stop("postgres", pg.Stop)
	for _, b := range []struct {
		mode benchv1.PoolMode
		into **localdb.PgBouncer
	}{{benchv1.PoolModeSession, &session}, {benchv1.PoolModeTransaction, &transaction}} {
		*b.into, err = localdb.StartPgBouncer(ctx, localdb.PgBouncerOptions{Postgres: pg, PoolMode: b.mode,
			Ports: ports, Parameters: localdb.Seed001PoolerParameters()})
		if err != nil {
			fmt.Fprintln(os.Stderr, "test/targets:", err)
			return 1
		}
		defer stop("pgbouncer "+string(b.mode), (*b.into).Stop)
	}
	return m.Run()
}

func stop(name string, f func() error) {
	if err := f(); err != nil {
		fmt.Fprintf(os.Stderr, "test/targets: stopping %s: %v\n", name, err)
	}
}

// TestTargets checks every targets/*/target.yaml in turn: install, start with WORKERS=2,
// verify every endpoint it lists, 1,000 sequential requests without an error, clean stop.
func TestTargets(t *testing.T) {
	testenv.Long(t)
	presets, err := preset.LoadAll(filepath.Join(repoRoot, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	if len(presets) == 0 {
		t.Fatal("no targets/*/target.yaml found")
	}
	for _, p := range presets {
		t.Run(p.Name, func(t *testing.T) { checkTarget(t, p) })
	}
}

func checkTarget(t *testing.T, p *preset.Preset) {
	if p.Local.Unsupported != "" {
		t.Logf("%s does not run on this machine: %s", p.Name, p.Local.Unsupported)
		return
	}
	ctx := context.Background()
	tg := installAndStart(t, p, session.DSN(), "on")

	rep, err := verify.Verify(ctx, verify.Options{BaseURL: tg.URL, Endpoints: p.Endpoints, AdminDSN: pg.AdminDSN(), NoKeepAlive: !p.KeepsAlive()})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.WriteText(&text, false)
	t.Log("\n" + text.String())
	if !rep.Passed() {
		t.Errorf("%s fails the contract:\n  %s", p.Name, strings.Join(rep.Failures(), "\n  "))
	}

	for _, e := range []preset.Endpoint{preset.Ping, preset.DBPing} {
		if !p.Supports(e) {
			continue
		}
		path, _ := preset.RouteOf(e)
		if n, first := sequential(tg.URL+path.Path, 1000); n > 0 {
			t.Errorf("%d of 1000 sequential GET %s failed; first: %s", n, path.Path, first)
		}
	}

	if err := tg.Stop(10 * time.Second); err != nil {
		t.Errorf("SIGTERM did not stop %s cleanly: %v", p.Name, err)
	}
}

// installAndStart runs the install script and starts the target with WORKERS=2; the target
// is stopped (forcefully if need be) when the test ends.
func installAndStart(t *testing.T, p *preset.Preset, databaseURL, prepared string) *local.Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	if err := local.Install(ctx, repoRoot, p); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed %s in %s", p.Name, time.Since(start).Round(time.Millisecond))
	tg, err := local.StartTarget(ctx, local.TargetOptions{Preset: p, Ports: ports, Workers: 2,
		DatabaseURL: databaseURL, Prepared: prepared, ReadyTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-tg.Done():
		default:
			_ = tg.Stop(5 * time.Second)
		}
	})
	return tg
}

// sequential sends n GET requests one after another on a keep-alive client and returns how
// many failed (transport error or status other than 200) and the first failure.
func sequential(url string, n int) (int, string) {
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	failed, first := 0, ""
	for i := 0; i < n; i++ {
		if problem := get(client, url); problem != "" {
			failed++
			if first == "" {
				first = fmt.Sprintf("request %d: %s", i+1, problem)
			}
		}
	}
	return failed, first
}

func get(client *http.Client, url string) string {
	resp, err := client.Get(url)
	if err != nil {
		return err.Error()
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "reading the body: " + err.Error()
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("%d %q", resp.StatusCode, clip(body))
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// TestPreparedStatementsBehindTransactionPooler reproduces seed 001's finding: drivers that
// prepare statements server-side fail behind PgBouncer in transaction mode, and work once
// DB_PREPARED=off turns that off.
func TestPreparedStatementsBehindTransactionPooler(t *testing.T) {
	testenv.Long(t)
	for _, name := range []string{"python-fastapi", "go-nethttp"} {
		t.Run(name, func(t *testing.T) {
			p, err := preset.Load(filepath.Join(repoRoot, "targets", name))
			if err != nil {
				t.Fatal(err)
			}
			if p.Local.Unsupported != "" {
				t.Logf("%s does not run on this machine: %s", name, p.Local.Unsupported)
				return
			}
			if !p.Supports(preset.DBPing) {
				t.Fatalf("%s does not list db-ping", name)
			}
			for _, prepared := range []string{"on", "off"} {
				tg := installAndStart(t, p, transaction.DSN(), prepared)
				failed, sample := concurrent(tg.URL+"/api/db/ping", 300, 16)
				t.Logf("DB_PREPARED=%s: %d of 300 failed %s", prepared, failed, sample)
				switch {
				case prepared == "on" && failed == 0:
					t.Errorf("DB_PREPARED=on through transaction pooling: no request failed; prepared statements are not in use")
				case prepared == "off" && failed > 0:
					t.Errorf("DB_PREPARED=off through transaction pooling: %d of 300 failed, e.g. %s", failed, sample)
				}
				if err := tg.Stop(10 * time.Second); err != nil {
					t.Errorf("DB_PREPARED=%s: SIGTERM did not stop %s cleanly: %v", prepared, name, err)
				}
			}
		})
	}
}

// concurrent sends n GET requests, at most c at a time, and returns how many failed.
func concurrent(url string, n, c int) (int, string) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	defer client.CloseIdleConnections()
	var failed atomic.Int64
	var once sync.Once
	sample := ""
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if problem := get(client, url); problem != "" {
					failed.Add(1)
					once.Do(func() { sample = problem })
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	return int(failed.Load()), sample
}
