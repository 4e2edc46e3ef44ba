package local

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
		if err := permittedTo(&Account{UID: uint32(uid), GID: ^uint32(0)}, home, 0o7); err != nil {
			t.Errorf("the target's HOME is not its own: %v", err)
		}
	}

	ls, err := Listeners(GroupMembers(tg.Pid()))
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
	resp, err := http.Get(url + "/env")
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

// Listeners finds this process's own sockets with their addresses, IPv4 and IPv6.
func TestListeners(t *testing.T) {
	testenv.Long(t)
	want := map[string]bool{}
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0", "[::1]:0", "[::]:0"} {
		network := "tcp4"
		if strings.HasPrefix(addr, "[") {
			network = "tcp6"
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatalf("listen %s: %v", addr, err)
		}
		defer l.Close()
		want[l.Addr().String()] = true
	}
	ls, err := Listeners([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range ls {
		if l.PID != os.Getpid() {
			t.Errorf("listener %v of another pid", l)
		}
		got[l.Addr.String()] = true
	}
	for a := range want {
		if !got[a] {
			t.Errorf("listener %s not found among %v", a, ls)
		}
	}
}

func TestListenRows(t *testing.T) {
	testenv.Long(t)
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0
   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2222 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 3333 1 0000000000000000 20 4 30 10 -1
`
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:0051 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5555 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6666 1 0000000000000000 100 0 0 10 0
`
	var got []string
	for _, r := range append(listenRows([]byte(tcp)), listenRows([]byte(tcp6))...) {
		got = append(got, r.inode+"="+r.addr.String())
	}
	// Little-endian host words, as on x86-64 and arm64 (the machines this runs on).
	want := "1111=127.0.0.1:8080 2222=0.0.0.0:80 4444=[::1]:8081 5555=[::]:81 6666=127.0.0.1:8082"
	if strings.Join(got, " ") != want {
		t.Errorf("rows\n got %s\nwant %s", strings.Join(got, " "), want)
	}
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
	stranger := &Account{Name: "stranger", UID: 54321, GID: 54321}
	if err := searchableBy(stranger, inner); err != nil {
		t.Fatalf("open folders: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := searchableBy(stranger, inner)
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
	err = runnableBy(stranger, open, "./gunicorn")
	if err == nil || !strings.Contains(err.Error(), interp) || !strings.Contains(err.Error(), filepath.Join(dir, "a")+" (mode") {
		t.Fatalf("script with an unreachable interpreter: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runnableBy(stranger, open, "./gunicorn"); err != nil {
		t.Fatalf("reachable interpreter: %v", err)
	}
}

// The null responder is the CLI itself, which may sit in a folder only root can enter (the
// tests build it into a private temporary one): it is copied where the target user can run it.
func TestRunnableCopy(t *testing.T) {
	testenv.Long(t)
	stranger := &Account{Name: "stranger", UID: 54321, GID: 54321}
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
	if err := runnableBy(stranger, "", argv[0]); err != nil {
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
