// Package local runs a benchmark on one machine: PostgreSQL, PgBouncer and the targets as
// child processes, each in its own process group so nothing outlives a run.
package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
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

// Account is a Unix user to run a process as.
type Account struct {
	Name     string
	UID, GID uint32
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
	return fmt.Errorf("%s: %s\n%s", p.Name, strings.Join(problems, "; "), indent(p.Tail()))
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

// serviceAccount is the user PostgreSQL and PgBouncer run as: the current one, or the
// postgres user when running as root (both refuse to run as root).
func serviceAccount() (*Account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	return lookupAccount("postgres", "running as root needs the postgres user to run PostgreSQL and PgBouncer: run hack/apt.sh postgresql-15 pgbouncer")
}

// TargetUser is the unprivileged system user targets run as when gauntlet runs as root
// (hack/local-user.sh creates it): a target is code from the spec's preset, and a spec may
// come from someone else.
const TargetUser = "gauntlet-target"

// targetAccount is the user targets run as: TargetUser when running as root, else nil
// (the invoking user, who is not root).
func targetAccount() (*Account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	return lookupAccount(TargetUser, "running as root, targets run as the unprivileged user "+TargetUser+": run hack/local-user.sh (as root) to create it")
}

func lookupAccount(name, missing string) (*Account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, errors.New(missing)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &Account{Name: u.Username, UID: uint32(uid), GID: uint32(gid)}, nil
}

// searchableBy checks that acct can reach dir and list it: every folder on the way needs
// the search bit for it (as owner, its group, or others; the process gets no other groups).
func searchableBy(acct *Account, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		want := os.FileMode(0o1) // search
		if d == abs {
			want = 0o5 // read and search
		}
		if err := permittedTo(acct, d, want); err != nil {
			return err
		}
		if d == "/" {
			return nil
		}
	}
}

// runnableBy checks that acct may run program (argv[0] as started in dir: a path, or a name
// looked up on PATH) and, through its symlinks, the file it resolves to: a venv's python
// may point into root's home (pyenv). nil acct: nothing to check.
func runnableBy(acct *Account, dir, program string) error {
	if acct == nil {
		return nil
	}
	path := program
	switch {
	case !strings.Contains(program, "/"):
		found, err := exec.LookPath(program)
		if err != nil {
			return err
		}
		path = found
	case !filepath.IsAbs(program):
		path = filepath.Join(dir, program)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for _, f := range []string{path, real} {
		if err := searchableBy(acct, filepath.Dir(f)); err != nil {
			return fmt.Errorf("%s: %w", program, err)
		}
		if err := permittedTo(acct, f, 0o5); err != nil {
			return fmt.Errorf("%s: %w", program, err)
		}
	}
	// A script's interpreter (.venv/bin/gunicorn starts .venv/bin/python) must be runnable too.
	if interp := shebang(real); interp != "" && interp != program {
		return runnableBy(acct, dir, interp)
	}
	return nil
}

// shebang is the interpreter path of a "#!" script, or "".
func shebang(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if fields := strings.Fields(rest); ok && len(fields) > 0 && filepath.IsAbs(fields[0]) {
		return fields[0]
	}
	return ""
}

// permittedTo checks the rwx bits (want, as in 0o5) that apply to acct on path.
func permittedTo(acct *Account, path string, want os.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner information", path)
	}
	mode := st.Mode().Perm()
	bits := mode & 0o7
	switch {
	case sys.Uid == acct.UID:
		bits = mode >> 6 & 0o7
	case sys.Gid == acct.GID:
		bits = mode >> 3 & 0o7
	}
	if bits&want != want {
		return fmt.Errorf("%s (mode %v, owner %d:%d) is not readable/searchable by %s (uid %d): make it world-readable (chmod o+rX) or run gauntlet as a user who owns it",
			path, mode, sys.Uid, sys.Gid, acct.Name, acct.UID)
	}
	return nil
}

// giveTo makes paths owned by the account (no-op without one).
func giveTo(acct *Account, paths ...string) error {
	if acct == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(acct.UID), int(acct.GID)); err != nil {
			return err
		}
	}
	return nil
}

// run runs a short command to completion, returning its output in the error on failure.
func run(spec Spec, timeout time.Duration) error {
	p, err := Start(spec)
	if err != nil {
		return err
	}
	if err := p.Wait(timeout); err != nil {
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s: %v\n%s", spec.Name, err, indent(p.Tail()))
	}
	return nil
}

func indent(s string) string {
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
