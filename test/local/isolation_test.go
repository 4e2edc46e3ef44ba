package local_test

import (
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// While a run is up (PostgreSQL, PgBouncer and two targets, a compiled one and a Python one
// on uvicorn), every socket its processes listen on is on 127.0.0.1, none on 0.0.0.0 or
// ::; run as root, the targets' processes are not root, PostgreSQL's and PgBouncer's neither.
func TestRunListensOnLoopbackOnlyAndDropsRoot(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: isolated}
spec:
  targets:
  - {name: go, preset: go-nethttp}
  - {name: fastapi, preset: python-fastapi}
  database: {pooler: {poolMode: Session}}
  scenarios: [{name: db, workload: db-ping}]
  load: {rates: [50], warmup: 1s, duration: 4s, repetitions: 1}
`, nil)
	// Trials start once both targets passed verification; they stay up until the run ends.
	c.waitFor(t, "trial 1/", 10*time.Minute)
	if !strings.Contains(c.stderr.String(), "fastapi passed verification") || !strings.Contains(c.stderr.String(), "go passed verification") {
		t.Fatalf("a target did not pass verification")
	}

	procs := descendants(c.cmd.Process.Pid)
	ls, err := supervise.Listeners(procs)
	if err != nil {
		t.Fatal(err)
	}
	ports := map[uint16]bool{}
	for _, l := range ls {
		t.Logf("pid %d (%s, uid %d) listens on %s", l.PID, cmdline(l.PID), procUID(t, l.PID), l.Addr)
		ports[l.Addr.Port()] = true
		if !l.Addr.Addr().IsLoopback() || l.Addr.Addr().Is6() {
			t.Errorf("pid %d (%s) listens on %s: want 127.0.0.1 only", l.PID, cmdline(l.PID), l.Addr)
		}
	}
	// PostgreSQL, PgBouncer and the two targets (k6 may add its API port on localhost).
	if len(ports) < 4 {
		t.Errorf("listening ports %v among %d processes: want PostgreSQL's, PgBouncer's and both targets'", ports, len(procs))
	}

	if os.Geteuid() == 0 {
		targetUser, err := user.Lookup(local.TargetUser)
		if err != nil {
			t.Fatal(err)
		}
		for _, pid := range procs {
			uid := procUID(t, pid)
			cmd := cmdline(pid)
			switch {
			case uid == 0 && !strings.Contains(cmd, "k6"):
				t.Errorf("pid %d (%s) runs as root", pid, cmd)
			case (strings.Contains(cmd, ".build/server") || strings.Contains(cmd, "server.py")) && strconv.Itoa(uid) != targetUser.Uid:
				t.Errorf("target pid %d (%s) runs as uid %d, want %s (%s)", pid, cmd, uid, local.TargetUser, targetUser.Uid)
			}
		}
	}

	if code := c.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}

// descendants are the live processes under root, from /proc's parent links.
func descendants(root int) []int {
	procs := supervise.Procs()
	var out []int
	for pid := range procs {
		for p := procs[pid].PPID; p > 1; p = procs[p].PPID {
			if p == root {
				if procs[pid].Live() {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1 // exited meanwhile
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			uid, _ := strconv.Atoi(strings.Fields(rest)[0])
			return uid
		}
	}
	return -1
}
