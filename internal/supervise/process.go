// Package supervise starts and stops the local mode's child processes (PostgreSQL,
// PgBouncer, targets, the null responder), each leading its own process group so that
// nothing outlives a run, as another user when run as root; and it reads /proc for their
// process trees, listening sockets and resource use. It knows nothing of benchmarks, so
// the runner and the local databases share it without depending on each other.
package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/cpuset"
)

// Spec describes a child process.
type Spec struct {
	Name string   // for messages: "postgres", "target go-nethttp"
	Argv []string // program and arguments
	Dir  string   // working directory
	Env  []string // the whole environment (nil: none)
	// RunAs, when set, runs the process as that user: PostgreSQL and PgBouncer refuse root.
	RunAs *Account
	// LogFile, when set, also receives everything the process writes.
	LogFile string
	// CPUs, when set, pins the process and everything it starts to these CPUs.
	CPUs []int
	// Cgroup, when set, is the cgroup the process and everything it starts are born in.
	Cgroup *cgroups.Group
}

// Process is a started child, leader of its own process group.
type Process struct {
	Name   string
	cmd    *exec.Cmd
	log    *tailBuffer
	file   *os.File
	done   chan struct{}
	err    error         // the leader's exit, once done is closed
	copied chan struct{} // closed when every writer of the output pipe is gone
}

// Start starts the process in a new process group. The leader gets SIGKILL if this
// program dies, so a crashed test does not leave a server running.
func Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, fmt.Errorf("%s: no program to run", spec.Name)
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = groupLeader()
	if spec.RunAs != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: spec.RunAs.UID, Gid: spec.RunAs.GID}
	}
	p := &Process{Name: spec.Name, cmd: cmd, log: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	// Our own pipe rather than exec's copying goroutine: Wait must return when the leader
	// exits, even while a leftover child still holds the pipe open.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var out io.Writer = p.log
	if spec.LogFile != "" {
		f, err := openLog(spec.LogFile)
		if err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("%s: log file: %w", spec.Name, err)
		}
		p.file = f
		out = io.MultiWriter(p.log, f)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err = spec.Cgroup.Start(cmd, func() error { return cpuset.Start(cmd, spec.CPUs) })
	w.Close()
	if err != nil {
		r.Close()
		if p.file != nil {
			p.file.Close()
		}
		return nil, fmt.Errorf("%s: starting %s: %w", spec.Name, spec.Argv[0], err)
	}
	p.copied = make(chan struct{})
	go func() {
		_, _ = io.Copy(out, r)
		r.Close()
		if p.file != nil {
			p.file.Close()
		}
		close(p.copied)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the leader's process id, which is also the process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the leader has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is the leader's exit (nil for status 0); only meaningful once Done is closed.
func (p *Process) ExitErr() error { return p.err }

// Tail returns the last lines the process wrote, for error messages.
func (p *Process) Tail() string {
	select {
	case <-p.done:
		// The last lines may still be in the pipe; wait briefly for the copier.
		select {
		case <-p.copied:
		case <-time.After(200 * time.Millisecond):
		}
	default:
	}
	return p.log.lastLines(30)
}

// Wait waits for the leader to exit, up to timeout.
func (p *Process) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s did not exit within %s", p.Name, timeout)
	}
}

// Stop sends sig to the leader (as Kubernetes does to PID 1), waits up to timeout, then
// kills the whole group. Any process of the group still alive after the leader exited is
// killed too and reported: a clean stop leaves nothing behind. The error also reports an
// exit status other than 0.
func (p *Process) Stop(sig syscall.Signal, timeout time.Duration) error {
	pgid := p.Pid()
	var problems []string
	select {
	case <-p.done:
	default:
		_ = syscall.Kill(pgid, sig)
		select {
		case <-p.done:
		case <-time.After(timeout):
			problems = append(problems, fmt.Sprintf("did not exit within %s of %s; killed", timeout, sig))
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		}
	}
	// Children that the leader should have stopped get a moment to finish, then are killed.
	if left := waitGroupEmpty(pgid, 3*time.Second); len(left) > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if still := waitGroupEmpty(pgid, 5*time.Second); len(still) > 0 {
			problems = append(problems, fmt.Sprintf("processes %v survive SIGKILL", still))
		}
		problems = append(problems, fmt.Sprintf("left %d process(es) behind %v; killed", len(left), left))
	}
	if len(problems) == 0 && p.err == nil {
		return nil
	}
	if p.err != nil && !strings.Contains(strings.Join(problems, ""), "killed") {
		problems = append([]string{"exited with " + p.err.Error()}, problems...)
	}
	return fmt.Errorf("%s: %s\n%s", p.Name, strings.Join(problems, "; "), Indent(p.Tail()))
}

// waitGroupEmpty polls until no live process is in the group, returning those still alive.
func waitGroupEmpty(pgid int, timeout time.Duration) []int {
	deadline := time.Now().Add(timeout)
	for {
		left := GroupMembers(pgid)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// GroupMembers lists the live (not zombie) processes of a process group, read from /proc:
// zombies cannot be signalled away, and their reaping is not ours once they are reparented.
func GroupMembers(pgid int) []int {
	var pids []int
	for pid, p := range Procs() {
		if p.Live() && p.PGID == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Run runs a short command to completion, returning its output in the error on failure.
func Run(spec Spec, timeout time.Duration) error {
	p, err := Start(spec)
	if err != nil {
		return err
	}
	if err := p.Wait(timeout); err != nil {
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s: %v\n%s", spec.Name, err, Indent(p.Tail()))
	}
	return nil
}

// Indent prints a process's output (Tail) under the error that quotes it, or says there
// was none; the runner quotes its children's output the same way.
func Indent(s string) string {
	if s == "" {
		return "  (no output)"
	}
	return "  | " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  | ")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// openLog opens a log file for appending without following a symbolic link, and refuses
// anything but a plain file of one link (O_NONBLOCK: a planted FIFO fails, not hangs). Logs lie in folders other users write (PostgreSQL's
// is the postgres user's): a link planted there would make root append to any file.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: refused", path)
	}
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink != 1 {
		f.Close()
		return nil, fmt.Errorf("%s is not a plain file of its own (mode %o, %d links): refused", path, st.Mode, st.Nlink)
	}
	return f, nil
}
