package historydb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
