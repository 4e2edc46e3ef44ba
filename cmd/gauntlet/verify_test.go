package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// pingOnlyTarget answers /healthz, /api/ping (with body) and 404s, as the contract says.
func pingOnlyTarget(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Server", "test")
		switch r.URL.Path {
		case "/healthz":
			_, _ = w.Write([]byte(`{"status":"ok"}`))
		case "/api/ping":
			_, _ = w.Write([]byte(body))
		default:
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error":"not found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runVerifyCmd(args ...string) (string, error) {
	cmd := newVerifyCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestVerifyCmdPassesAndFails(t *testing.T) {
	out, err := runVerifyCmd("--url", pingOnlyTarget(t, `{"ok":true,"message":"OK"}`), "--endpoints", "ping")
	if err != nil || !strings.Contains(out, "PASS  ping") || !strings.Contains(out, "0 of ") {
		t.Fatalf("a good target: err %v\n%s", err, out)
	}
	out, err = runVerifyCmd("--url", pingOnlyTarget(t, `{"ok":false}`), "--endpoints", "ping")
	if err == nil || !strings.Contains(err.Error(), "checks failed") {
		t.Fatalf("a bad target must give an error (exit 1), got %v", err)
	}
	if !strings.Contains(out, "FAIL  ping") || !strings.Contains(out, `expected "{\"ok\":true,\"message\":\"OK\"}"`) {
		t.Errorf("the report should say what was expected:\n%s", out)
	}
}

func TestVerifyCmdNeverPrintsThePassword(t *testing.T) {
	url := pingOnlyTarget(t, `{"ok":true,"message":"OK"}`)
	out, err := runVerifyCmd("--url", url, "--endpoints", "db-ping",
		"--admin-dsn", "postgres://admin:hunter2-secret@127.0.0.1:1/bench?connect_timeout=2")
	if err == nil {
		t.Fatal("db-ping is missing and the database unreachable: verify must fail")
	}
	if strings.Contains(out, "hunter2-secret") || strings.Contains(err.Error(), "hunter2-secret") {
		t.Errorf("password printed:\n%s", out)
	}
	if !strings.Contains(out, "postgres://admin:xxxxx@127.0.0.1:1/bench") {
		t.Errorf("the redacted DSN should be shown:\n%s", out)
	}
}

func TestVerifyCmdBadFlags(t *testing.T) {
	if _, err := runVerifyCmd("--url", "http://127.0.0.1:1", "--endpoints", "ping,pong"); err == nil || !strings.Contains(err.Error(), `unknown endpoint "pong"`) {
		t.Errorf("unknown endpoint: %v", err)
	}
	if _, err := runVerifyCmd("--endpoints", "ping"); err == nil || !strings.Contains(err.Error(), "url") {
		t.Errorf("missing --url: %v", err)
	}
}
