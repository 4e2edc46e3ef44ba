package local

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A target started by root runs as TargetUser, with a HOME and TMPDIR of its own (removed
// when it stops), and listens on 127.0.0.1 only; started by anyone else, as that user.
func TestTargetRunsUnprivilegedOnLoopback(t *testing.T) {
	testenv.Long(t)
	tg, err := StartTarget(context.Background(), TargetOptions{Preset: tinyTarget(t, ""), Ports: testPorts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Stop(time.Second) })

	uid, err := tg.Uid()
	if err != nil {
		t.Fatal(err)
	}
	wantUID := os.Getuid()
	if os.Geteuid() == 0 {
		u, err := user.Lookup(TargetUser)
		if err != nil {
			t.Fatalf("running as root, %s must exist (Install runs hack/local-user.sh): %v", TargetUser, err)
		}
		wantUID, _ = strconv.Atoi(u.Uid)
		if uid == 0 {
			t.Fatal("the target runs as root")
		}
	}
	if uid != wantUID {
		t.Errorf("target uid %d, want %d", uid, wantUID)
	}

	env := getEnv(t, tg.URL)
	if env["HOST"] != "127.0.0.1" {
		t.Errorf("HOST = %q, want 127.0.0.1", env["HOST"])
	}
	home := env["HOME"]
	if os.Geteuid() == 0 {
		if home == "" || env["TMPDIR"] != home || !strings.HasPrefix(home, os.TempDir()) {
			t.Errorf("HOME %q, TMPDIR %q: want one private folder under %s", home, env["TMPDIR"], os.TempDir())
		}
		if err := supervise.PermittedTo(&supervise.Account{UID: uint32(uid), GID: ^uint32(0)}, home, 0o7); err != nil {
			t.Errorf("the target's HOME is not its own: %v", err)
		}
	}

	ls, err := supervise.Listeners(supervise.GroupMembers(tg.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) == 0 {
		t.Fatal("no listening socket found for the target's process group")
	}
	for _, l := range ls {
		if l.Addr.Addr() != netip.MustParseAddr("127.0.0.1") || strconv.Itoa(int(l.Addr.Port())) != strings.TrimPrefix(tg.URL, "http://127.0.0.1:") {
			t.Errorf("pid %d listens on %s, want only %s", l.PID, l.Addr, tg.URL)
		}
	}

	if err := tg.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if _, err := os.Stat(home); !os.IsNotExist(err) {
			t.Errorf("the target's HOME %s is still there after Stop: %v", home, err)
		}
	}
}

func getEnv(t *testing.T, url string) map[string]string {
	t.Helper()
	return getEnvAt(t, url+"/env")
}

// getEnvAt reads a JSON object of strings from url.
func getEnvAt(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range got {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// A preset that ignores HOST and listens on every interface is stopped and refused.
func TestTargetListeningBeyondLoopbackIsRefused(t *testing.T) {
	testenv.Long(t)
	p := tinyTarget(t, "")
	_, err := StartTarget(context.Background(), TargetOptions{Preset: p, Ports: testPorts, Env: map[string]string{"MODE": "wildcard"}})
	if err == nil || !strings.Contains(err.Error(), "listens on 0.0.0.0:") || !strings.Contains(err.Error(), "HOST") {
		t.Fatalf("err = %v, want a refusal naming 0.0.0.0 and HOST", err)
	}
	// Nothing of it is left: the group of the pid the message names (its leader) is gone.
	_, after, _ := strings.Cut(err.Error(), "(pid ")
	pid, convErr := strconv.Atoi(strings.SplitN(after, ")", 2)[0])
	if convErr != nil {
		t.Fatalf("no pid in %q", err)
	}
	assertGroupGone(t, pid)
}

// searchableBy names the folder a user cannot enter, whoever runs the test.
func TestSearchableBy(t *testing.T) {
	testenv.Long(t)
	dir := t.TempDir()
	inner := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	openToTargets(t, inner)
	stranger := &supervise.Account{Name: "stranger", UID: 54321, GID: 54321}
	if err := supervise.SearchableBy(stranger, inner); err != nil {
		t.Fatalf("open folders: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := supervise.SearchableBy(stranger, inner)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a")+" (mode") || !strings.Contains(err.Error(), "stranger") {
		t.Fatalf("err = %v, want one naming %s and the user", err, filepath.Join(dir, "a"))
	}

	// A script whose interpreter lies behind that folder (a venv made with root's pyenv).
	open := filepath.Join(dir, "open")
	if err := os.MkdirAll(open, 0o755); err != nil {
		t.Fatal(err)
	}
	interp := filepath.Join(inner, "python")
	script := filepath.Join(open, "gunicorn")
	for f, body := range map[string]string{interp: "", script: "#!" + interp + " -s\n"} {
		if err := os.WriteFile(f, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err = supervise.RunnableBy(stranger, open, "./gunicorn")
	if err == nil || !strings.Contains(err.Error(), interp) || !strings.Contains(err.Error(), filepath.Join(dir, "a")+" (mode") {
		t.Fatalf("script with an unreachable interpreter: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := supervise.RunnableBy(stranger, open, "./gunicorn"); err != nil {
		t.Fatalf("reachable interpreter: %v", err)
	}
}

// The null responder is the CLI itself, which may sit in a folder only root can enter (the
// tests build it into a private temporary one): it is copied where the target user can run it.
func TestRunnableCopy(t *testing.T) {
	testenv.Long(t)
	stranger := &supervise.Account{Name: "stranger", UID: 54321, GID: 54321}
	private := t.TempDir()
	prog := filepath.Join(private, "gauntlet")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	argv := []string{prog, "null-responder"}
	home, err := runnableCopy(stranger, argv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = removeHome(home) })
	if home == "" || argv[0] != filepath.Join(home, "gauntlet") || argv[1] != "null-responder" {
		t.Fatalf("home %q argv %q: want the program copied into a folder of its own", home, argv)
	}
	if err := supervise.RunnableBy(stranger, "", argv[0]); err != nil {
		t.Fatalf("copy not runnable by the target user: %v", err)
	}
	if body, _ := os.ReadFile(argv[0]); string(body) != "#!/bin/sh\necho null\n" {
		t.Fatalf("copy holds %q", body)
	}

	// A program the user can already run is used where it is.
	if err := os.Chmod(private, 0o755); err != nil {
		t.Fatal(err)
	}
	openToTargets(t, private)
	argv = []string{prog}
	if home, err := runnableCopy(stranger, argv); err != nil || home != "" || argv[0] != prog {
		t.Fatalf("reachable program: home %q argv %q err %v", home, argv, err)
	}
	if err := removeHome(home); err != nil || fileExists(home) {
		t.Fatalf("copy not removed: %v", err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A clone in a private folder (root's home, `mktemp -d`): started by root, the target runs
// from a copy of its own folder and the shared kit beside it, which TargetUser may read,
// removed when it stops; nothing else of the private folder is copied, and no permission
// of the user's folders changes. Started by anyone else, it runs from its folder.
func TestTargetInAPrivateFolderRunsFromACopy(t *testing.T) {
	testenv.Long(t)
	p := tinyTarget(t, "")
	private := filepath.Dir(p.Dir)
	kit := filepath.Join(private, sharedKit, "python")
	if err := os.MkdirAll(kit, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{filepath.Join(kit, "kit.py"): "", filepath.Join(private, "secret.txt"): "token"} {
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	tg, err := StartTarget(context.Background(), TargetOptions{Preset: p, Ports: testPorts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Stop(time.Second) })
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(tg.Pid()), "cwd"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(private); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the private folder's mode changed: %v %v", st.Mode(), err)
	}
	if os.Geteuid() != 0 {
		if cwd != p.Dir {
			t.Errorf("started as uid %d, the target runs in %s, want its folder %s", os.Geteuid(), cwd, p.Dir)
		}
		return
	}
	if strings.HasPrefix(cwd, private+"/") || filepath.Base(cwd) != filepath.Base(p.Dir) {
		t.Fatalf("the target runs in %s, want a copy of %s outside %s", cwd, p.Dir, private)
	}
	staged := filepath.Dir(cwd)
	if _, err := os.Stat(filepath.Join(staged, sharedKit, "python", "kit.py")); err != nil {
		t.Errorf("the shared kit was not copied beside the target: %v", err)
	}
	if _, err := os.Stat(filepath.Join(staged, "secret.txt")); !os.IsNotExist(err) {
		t.Errorf("a file of the private folder beside the target was copied: %v", err)
	}
	acct, err := targetAccount()
	if err != nil {
		t.Fatal(err)
	}
	if err := supervise.PermittedTo(acct, cwd, 0o2); err == nil {
		t.Errorf("%s may write the copy it runs from", acct.Name)
	}
	if err := tg.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staged); !os.IsNotExist(err) {
		t.Errorf("the copy %s is still there after Stop: %v", staged, err)
	}
}

// Root's secrets never reach a target run as TargetUser: it gets PATH, the locale, the
// contract's variables and a HOME and TMPDIR of its own, nothing else of root's environment.
// A target run by an ordinary user inherits that user's shell, as before.
func TestTargetAsAnotherUserGetsAnAllowListedEnvironment(t *testing.T) {
	testenv.Long(t)
	secrets := map[string]string{"AWS_SECRET_ACCESS_KEY": "aws-secret", "GITHUB_TOKEN": "gh-token",
		"SSH_AUTH_SOCK": "/root/agent.sock", "NODE_OPTIONS": "--require=/root/hook.js", "PYTHONPATH": "/root/lib"}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("WORKERS", "99") // a contract variable is never inherited

	env := envMap(environ(map[string]string{"PORT": "1"}, true))
	for k := range secrets {
		if _, ok := env[k]; ok {
			t.Errorf("%s reaches a target run as another user", k)
		}
	}
	if env["PATH"] != os.Getenv("PATH") || env["LC_ALL"] != "C.UTF-8" || env["PORT"] != "1" {
		t.Errorf("PATH %q, LC_ALL %q, PORT %q: want the caller's PATH and locale and the given PORT", env["PATH"], env["LC_ALL"], env["PORT"])
	}
	if _, ok := env["WORKERS"]; ok {
		t.Error("WORKERS inherited")
	}
	if own := envMap(environ(nil, false)); own["GITHUB_TOKEN"] != "gh-token" || own["WORKERS"] != "" {
		t.Errorf("a target run as the caller: GITHUB_TOKEN %q, WORKERS %q; want the caller's shell without the contract's variables", own["GITHUB_TOKEN"], own["WORKERS"])
	}

	tg, err := StartTarget(context.Background(), TargetOptions{Preset: tinyTarget(t, ""), Ports: testPorts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Stop(time.Second) })
	got := getEnvAt(t, tg.URL+"/environ")
	for k, v := range secrets {
		if root := os.Geteuid() == 0; root && got[k] != "" {
			t.Errorf("root's %s=%q reached the target run as %s", k, got[k], TargetUser)
		} else if !root && got[k] != v {
			t.Errorf("%s = %q in a target run as the caller, want the caller's %q", k, got[k], v)
		}
	}
	if os.Geteuid() == 0 {
		for k := range got {
			allowed := strings.HasPrefix(k, "LC_") || k == "HOME" || k == "TMPDIR"
			for _, a := range append(append([]string{}, inheritedByOtherUser...), contractVars...) {
				allowed = allowed || k == a
			}
			if !allowed {
				t.Errorf("the target run as %s got %s, which is not on the allow-list", TargetUser, k)
			}
		}
	}
}
