package local

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// tinyServer is a throwaway target: /healthz, /env (its contract variables), /environ (its
// whole environment) and a MODE
// variable choosing how it misbehaves on SIGTERM.
const tinyServer = `import json, os, signal, subprocess, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
mode = os.environ.get("MODE", "")
if mode == "crash":
    print("fatal: cannot parse config", flush=True)
    sys.exit(3)
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        keys = ["HOST", "PORT", "WORKERS", "DATABASE_URL", "DB_POOL_MIN", "DB_POOL_MAX", "DB_PREPARED", "EXTRA", "HOME", "TMPDIR"]
        body = json.dumps({k: os.environ.get(k) for k in keys} | {"argv": sys.argv[1:]}).encode()
        if self.path == "/environ":
            body = json.dumps(dict(os.environ)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
host = "0.0.0.0" if mode == "wildcard" else os.environ.get("HOST", "0.0.0.0")
srv = ThreadingHTTPServer((host, int(os.environ["PORT"])), H)
if mode == "orphan":
    subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 300"])
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=srv.shutdown).start())
srv.serve_forever()
`

// testPython is Debian's interpreter when there is one: as root, the target runs as
// TargetUser, who cannot run a python3 under root's home (pyenv) that PATH may find first.
var testPython = func() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}()

// testPorts keeps development runs inside the loopback range reserved for this work.
var testPorts = loopback.PortRange{Lo: 18000, Hi: 18999}

func tinyTarget(t *testing.T, install string) *preset.Preset {
	t.Helper()
	// As root, targets run as TargetUser: the hack/ script the run's Install calls makes it.
	if out, err := exec.Command("bash", filepath.Join(testenv.Root(), "hack", "local-user.sh")).CombinedOutput(); err != nil {
		t.Fatalf("hack/local-user.sh: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "tiny-python")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `name: tiny-python
description: a throwaway target for the harness's own tests
language: {name: Python, version: "3"}
runtime: {name: cpython, version: "3"}
framework: {name: http.server, version: "3"}
endpoints: [ping]
image: example.invalid/tiny:0
dockerfile: Dockerfile
local:
  install: ` + install + `
  start: [` + testPython + `, server.py, "--workers=${WORKERS}"]
`
	for name, body := range map[string]string{"target.yaml": manifest, "server.py": tinyServer, "Dockerfile": "FROM python:3\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	openToTargets(t, dir)
	p, err := preset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openToTargets lets TargetUser reach dir when the test runs as root: t.TempDir() makes
// folders only their owner may enter.
func openToTargets(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTargetEnvironmentAndCleanStop(t *testing.T) {
	testenv.Long(t)
	t.Setenv("DB_POOL_MIN", "99") // a developer's shell must not leak into the target
	p := tinyTarget(t, "hack/x.sh")
	tg, err := StartTarget(context.Background(), TargetOptions{Preset: p, Ports: testPorts, Workers: 2,
		DatabaseURL: "postgres://bench:pw@127.0.0.1:1/bench?sslmode=disable", Prepared: "off",
		Env: map[string]string{"EXTRA": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	pid := tg.Pid()
	t.Cleanup(func() { _ = tg.Stop(time.Second) })

	resp, err := http.Get(tg.URL + "/env")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := map[string]any{"WORKERS": "2", "DB_POOL_MIN": "5", "DB_POOL_MAX": "15", "DB_PREPARED": "off",
		"DATABASE_URL": "postgres://bench:pw@127.0.0.1:1/bench?sslmode=disable", "EXTRA": "yes"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["PORT"] != strings.TrimPrefix(tg.URL, "http://127.0.0.1:") {
		t.Errorf("PORT = %v for %s", got["PORT"], tg.URL)
	}
	if args, _ := got["argv"].([]any); len(args) != 1 || args[0] != "--workers=2" {
		t.Errorf("argv = %v, want [--workers=2] (${WORKERS} expanded)", got["argv"])
	}

	if err := tg.Stop(5 * time.Second); err != nil {
		t.Fatalf("graceful stop reported %v", err)
	}
	assertGroupGone(t, pid)
}

func TestTargetMisbehaviourIsReportedAndCleanedUp(t *testing.T) {
	testenv.Long(t)
	cases := []struct {
		mode    string
		timeout time.Duration
		want    string
	}{
		{"stubborn", 500 * time.Millisecond, "did not exit within 500ms"},
		{"orphan", 5 * time.Second, "process(es) behind"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			tg, err := StartTarget(context.Background(), TargetOptions{Preset: tinyTarget(t, ""), Ports: testPorts,
				Env: map[string]string{"MODE": c.mode}})
			if err != nil {
				t.Fatal(err)
			}
			if c.mode == "orphan" {
				testenv.WaitFor(t, func() bool { return len(supervise.GroupMembers(tg.Pid())) >= 3 })
			}
			err = tg.Stop(c.timeout)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			assertGroupGone(t, tg.Pid())
		})
	}
}

func TestTargetStartFailures(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()

	_, err := StartTarget(ctx, TargetOptions{Preset: tinyTarget(t, ""), Ports: testPorts, Env: map[string]string{"MODE": "crash"}})
	if err == nil || !strings.Contains(err.Error(), "exited while starting") || !strings.Contains(err.Error(), "fatal: cannot parse config") {
		t.Fatalf("crash: err = %v, want the exit and the log tail", err)
	}

	p := tinyTarget(t, "")
	p.Local.Start = []string{".build/server"}
	_, err = StartTarget(ctx, TargetOptions{Preset: p, Ports: testPorts})
	if err == nil || !strings.Contains(err.Error(), "run its install script") {
		t.Fatalf("missing binary: err = %v", err)
	}

	p = tinyTarget(t, "")
	p.Local.Unsupported = "needs io_uring"
	if _, err := StartTarget(ctx, TargetOptions{Preset: p}); err == nil || !strings.Contains(err.Error(), "needs io_uring") {
		t.Fatalf("unsupported: err = %v", err)
	}
	if err := Install(ctx, "/", p); err == nil || !strings.Contains(err.Error(), "needs io_uring") {
		t.Fatalf("unsupported install: err = %v", err)
	}

	if _, err := StartTarget(ctx, TargetOptions{Preset: tinyTarget(t, ""), Prepared: "maybe"}); err == nil || !strings.Contains(err.Error(), "want on or off") {
		t.Fatalf("DB_PREPARED: err = %v", err)
	}

	p = tinyTarget(t, "")
	p.Local.Start = []string{"python3", "${NOT_SET}"}
	if _, err := StartTarget(ctx, TargetOptions{Preset: p, Ports: testPorts}); err == nil || !strings.Contains(err.Error(), "NOT_SET") {
		t.Fatalf("unset variable: err = %v", err)
	}
}

func TestInstall(t *testing.T) {
	testenv.Long(t)
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "hack"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "set -eu\necho installing into \"$1\"\ntouch \"$1/installed\"\n"
	if err := os.WriteFile(filepath.Join(repo, "hack", "ok.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "hack", "fail.sh"), []byte("echo 'npm ERR! 404'\nexit 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Install creates TargetUser through it when running as root and the user is missing.
	if err := os.Symlink(filepath.Join(testenv.Root(), "hack", "local-user.sh"), filepath.Join(repo, "hack", "local-user.sh")); err != nil {
		t.Fatal(err)
	}
	p := tinyTarget(t, "hack/ok.sh")
	if err := Install(context.Background(), repo, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "installed")); err != nil {
		t.Fatalf("the script did not get the target folder as $1: %v", err)
	}
	p.Local.Install = "hack/fail.sh"
	err := Install(context.Background(), repo, p)
	if err == nil || !strings.Contains(err.Error(), "exit status 7") || !strings.Contains(err.Error(), "npm ERR! 404") {
		t.Fatalf("err = %v", err)
	}
	p.Local.Install = "hack/missing.sh"
	if err := Install(context.Background(), repo, p); err == nil || !strings.Contains(err.Error(), "missing.sh") {
		t.Fatalf("err = %v", err)
	}
}

// assertGroupGone fails when a process of the group is still alive: a stopped target leaves
// nothing behind.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if left := supervise.GroupMembers(pgid); len(left) > 0 {
		t.Fatalf("process group %d still has %v", pgid, left)
	}
}
