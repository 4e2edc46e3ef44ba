package historydb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gauntlet-bench/gauntlet/internal/localdb"
)

// A message carrying the URL, its password alone, or another URL's or key=value string's
// password comes out without any of them; the rest of the message stays.
func TestRedact(t *testing.T) {
	dsn := "postgres://gauntlet:s3cr-et%2Fx@db.example:5432/gauntlet_history?sslmode=require"
	for _, msg := range []string{
		"cannot parse `" + dsn + "`: bad",
		"auth failed for password s3cr-et/x at db.example",
		"dial postgresql://other:hunter2@10.0.0.1/db: refused",
		"connect host=db user=u password=hunter2 dbname=d: refused",
		"connect host=db password='hun ter2' dbname=d: refused",
	} {
		got := Redact(msg, dsn)
		for _, secret := range []string{"s3cr-et/x", "s3cr-et%2Fx", "hunter2", "hun ter2"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q: %q is still there", msg, got, secret)
			}
		}
		if !strings.Contains(got, "xxxxx") {
			t.Errorf("Redact(%q) = %q: nothing marked as taken out", msg, got)
		}
	}
	if got := Redact("connection refused", dsn); got != "connection refused" {
		t.Errorf("a message without a secret changed: %q", got)
	}
}

// The URL file must hold a URL: missing, empty or unparsable, the error names the file and
// carries no password.
func TestOpenFileRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	empty, bad := filepath.Join(dir, "empty"), filepath.Join(dir, "bad")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("postgres://u:topsecret@h:notaport/db"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{filepath.Join(dir, "missing"): "no such file", empty: empty + " is empty", bad: "the URL in " + bad} {
		_, err := OpenFile(context.Background(), path)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%s: %v, want %q and no password", path, err, want)
		}
	}
}

// A rotated password, as CloudNativePG rotates the -app Secret: once the file holds the new
// URL, the store's next connection logs in with it, with no restart; a store opened on the
// old URL string cannot. A wrong password's error, redacted as the controller redacts it,
// carries neither password.
func TestOpenFileFollowsARotatedPassword(t *testing.T) {
	_, _, pg := startStore(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.AdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(ctx) }()
	file := filepath.Join(t.TempDir(), "uri")
	write := func(dsn string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(dsn+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(pg.DSN())
	s, err := OpenFile(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fixed, err := Open(ctx, pg.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Close()
	if _, err := s.Append(ctx, nightly("rotate", 0, 1)); err != nil {
		t.Fatal(err)
	}

	const rotated = "rotated-Pa55word"
	if _, err := admin.Exec(ctx, "ALTER ROLE "+localdb.BenchUser+" PASSWORD '"+rotated+"'"); err != nil {
		t.Fatal(err)
	}
	write(strings.Replace(pg.DSN(), ":"+pg.Password+"@", ":"+rotated+"@", 1))
	// PostgreSQL keeps sessions already logged in: only new connections meet the new password.
	s.pool.Reset()
	fixed.pool.Reset()
	if _, err := s.Append(ctx, nightly("rotate", 1, 1)); err != nil {
		t.Fatalf("after the rotation, with the new URL in the file: %v", err)
	}
	if _, err := fixed.Append(ctx, nightly("rotate", 2, 1)); err == nil {
		t.Fatal("a store holding the old password still logged in: the rotation tested nothing")
	}

	write(strings.Replace(pg.DSN(), ":"+pg.Password+"@", ":wrong-"+rotated+"@", 1))
	s.pool.Reset()
	_, err = s.Append(ctx, nightly("rotate", 3, 1))
	if err == nil {
		t.Fatal("a wrong password in the file logged in")
	}
	msg := RedactFile(err.Error(), file)
	for _, secret := range []string{rotated, pg.Password} {
		if strings.Contains(msg, secret) {
			t.Errorf("the redacted error carries a password: %s", msg)
		}
	}
	// Back to the right password: both runs appended across the rotation are there.
	write(strings.Replace(pg.DSN(), ":"+pg.Password+"@", ":"+rotated+"@", 1))
	s.pool.Reset()
	runs, err := s.Load(ctx, "bench", "rotate", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(runs); len(got) != 2 || got[0] != "rotate-000" || got[1] != "rotate-001" {
		t.Errorf("runs after the rotation: %v, want rotate-000 and rotate-001", got)
	}
}
