package supervise

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func sh(script string) Spec {
	return Spec{Name: "sh", Argv: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}}
}

func TestStopCleanExit(t *testing.T) {
	p, err := Start(sh(`trap 'echo bye; exit 0' TERM; echo started; while :; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, func() bool { return strings.Contains(p.Tail(), "started") })
	if err := p.Stop(syscall.SIGTERM, 5*time.Second); err != nil {
		t.Fatalf("clean exit reported as %v", err)
	}
	if !strings.Contains(p.Tail(), "bye") {
		t.Fatalf("the SIGTERM handler did not run; output %q", p.Tail())
	}
	assertGroupGone(t, p.Pid())
}

func TestStopKillsAfterTimeout(t *testing.T) {
	p, err := Start(sh(`trap '' TERM; echo stubborn; while :; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, func() bool { return strings.Contains(p.Tail(), "stubborn") })
	start := time.Now()
	err = p.Stop(syscall.SIGTERM, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not exit within 300ms") || !strings.Contains(err.Error(), "stubborn") {
		t.Fatalf("err = %v, want a timeout naming the log tail", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Stop took %s", time.Since(start))
	}
	assertGroupGone(t, p.Pid())
}

func TestStopKillsLeftoverChildren(t *testing.T) {
	// The leader exits 0 on SIGTERM but its children ignore SIGTERM and outlive it.
	p, err := Start(sh(`trap 'exit 0' TERM; (trap '' TERM; sleep 300) & (trap '' TERM; sleep 300) & echo forked; while :; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, func() bool { return len(GroupMembers(p.Pid())) >= 3 })
	err = p.Stop(syscall.SIGTERM, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "left 2 process(es) behind") {
		t.Fatalf("err = %v, want the two leftover children reported", err)
	}
	assertGroupGone(t, p.Pid())
}

func TestStopReportsExitStatusAndTail(t *testing.T) {
	p, err := Start(sh(`echo "fatal: bad config" >&2; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	err = p.Stop(syscall.SIGTERM, time.Second)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "fatal: bad config") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Spec{Name: "empty"}); err == nil || !strings.Contains(err.Error(), "no program") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Start(Spec{Name: "missing", Argv: []string{"/nonexistent/server"}}); err == nil || !strings.Contains(err.Error(), "/nonexistent/server") {
		t.Fatalf("err = %v", err)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	tb := &tailBuffer{max: 100}
	for i := 0; i < 100; i++ {
		_, _ = tb.Write([]byte("line " + strconv.Itoa(i) + "\n"))
	}
	got := tb.lastLines(3)
	if got != "line 97\nline 98\nline 99" {
		t.Fatalf("tail = %q", got)
	}
	if len(tb.buf) > 100 {
		t.Fatalf("buffer grew to %d bytes", len(tb.buf))
	}
}

func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if left := GroupMembers(pgid); len(left) > 0 {
		t.Fatalf("process group %d still has %v", pgid, left)
	}
}
