package local

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// TargetOptions is the environment a target gets, the same as in the cluster (targets/CONTRACT.md).
type TargetOptions struct {
	Preset *preset.Preset
	Port   int // 0: a free one in Ports
	Ports  loopback.PortRange
	// Workers is WORKERS (0: 1).
	Workers int
	// DatabaseURL is DATABASE_URL; empty leaves it unset (DB endpoints answer 503).
	DatabaseURL string
	// PoolMin and PoolMax are DB_POOL_MIN and DB_POOL_MAX (0: 5 and 15, seed 001's).
	PoolMin, PoolMax int
	// Prepared is DB_PREPARED, "on" or "off" (empty: on).
	Prepared string
	// Env adds or overrides variables.
	Env map[string]string
	// ReadyTimeout bounds the wait for /healthz (0: 60 s).
	ReadyTimeout time.Duration
	// LogFile, when set, keeps the target's whole output.
	LogFile string
	// CPUs, when set, pins the target to these CPUs (the placement's target side).
	CPUs []int
	// Cgroup, when set, holds the target's processes under its resources' limits.
	Cgroup *cgroups.Group
}

// Target is a running target process.
type Target struct {
	Name string
	Port int
	URL  string // http://127.0.0.1:PORT
	proc *supervise.Process
	// home is the HOME and TMPDIR of a target run as TargetUser; removed by Stop.
	home string
	// staged, when set, holds the copy of the target's folder it runs from (stageTarget);
	// removed by Stop.
	staged string
}

// contractVars are the variables the contract defines; inherited values are dropped so a
// developer's shell never leaks into a run.
var contractVars = []string{HostVar, "PORT", "WORKERS", "DATABASE_URL", "DB_POOL_MIN", "DB_POOL_MAX", "DB_PREPARED"}

// Install runs the target's install script, `bash <repo>/<install> <target dir>`.
func Install(ctx context.Context, repoRoot string, p *preset.Preset) error {
	if p.Local.Unsupported != "" {
		return fmt.Errorf("target %s is not supported on this machine: %s", p.Name, p.Local.Unsupported)
	}
	if _, err := targetAccount(); err != nil { // root without TargetUser yet: create it
		if err := supervise.Run(supervise.Spec{Name: "hack/local-user.sh", Argv: []string{"bash", filepath.Join(repoRoot, "hack", "local-user.sh")},
			Dir: repoRoot, Env: os.Environ()}, time.Minute); err != nil {
			return err
		}
	}
	if p.Local.Install == "" {
		return nil
	}
	script := filepath.Join(repoRoot, p.Local.Install)
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("target %s: install script: %w", p.Name, err)
	}
	proc, err := supervise.Start(supervise.Spec{Name: "install " + p.Name, Argv: []string{"bash", script, p.Dir},
		Dir: repoRoot, Env: installEnviron()})
	if err != nil {
		return err
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		_ = proc.Stop(syscall.SIGTERM, 5*time.Second)
		return fmt.Errorf("install %s: %w\n%s", p.Name, ctx.Err(), supervise.Indent(proc.Tail()))
	}
	if err := proc.ExitErr(); err != nil {
		return fmt.Errorf("install %s (bash %s %s): %v\n%s", p.Name, p.Local.Install, p.Dir, err, supervise.Indent(proc.Tail()))
	}
	return nil
}

// StartTarget starts the preset's local.start in its folder, in its own process group, and
// waits until GET /healthz answers 200. It listens on 127.0.0.1 (HOST). Started by root, it
// runs as TargetUser with a HOME and TMPDIR of its own. On error nothing is left running and
// the error carries the end of the target's output.
func StartTarget(ctx context.Context, opts TargetOptions) (_ *Target, err error) {
	p := opts.Preset
	if p == nil {
		return nil, fmt.Errorf("start target: no preset")
	}
	if p.Local.Unsupported != "" {
		return nil, fmt.Errorf("target %s is not supported on this machine: %s", p.Name, p.Local.Unsupported)
	}
	if opts.Prepared != "" && opts.Prepared != "on" && opts.Prepared != "off" {
		return nil, fmt.Errorf("target %s: DB_PREPARED %q: want on or off", p.Name, opts.Prepared)
	}
	if opts.Workers < 0 || opts.PoolMin < 0 || opts.PoolMax < 0 || (opts.PoolMax > 0 && opts.PoolMin > opts.PoolMax) {
		return nil, fmt.Errorf("target %s: workers %d, pool %d..%d: want non-negative numbers with min <= max",
			p.Name, opts.Workers, opts.PoolMin, opts.PoolMax)
	}
	acct, err := targetAccount()
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", p.Name, err)
	}
	port := opts.Port
	if port == 0 {
		if port, err = loopback.FreePort(opts.Ports); err != nil {
			return nil, fmt.Errorf("target %s: %w", p.Name, err)
		}
	}
	vars := targetVars(opts, port)
	t := &Target{Name: p.Name, Port: port, URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	defer func() {
		if err != nil {
			_ = t.removeFolders()
		}
	}()
	dir := p.Dir
	if acct != nil {
		if supervise.SearchableBy(acct, dir) != nil {
			if dir, t.staged, err = stageTarget(acct, p.Dir); err != nil {
				return nil, fmt.Errorf("target %s runs as %s: %w", p.Name, acct.Name, err)
			}
		}
		// Root's HOME and TMPDIR are not the target's to write; a folder of its own is.
		if t.home, err = os.MkdirTemp("", "gauntlet-target-"); err != nil {
			return nil, err
		}
		if err := supervise.GiveTo(acct, t.home); err != nil {
			return nil, fmt.Errorf("target %s: giving %s to %s: %w", p.Name, t.home, acct.Name, err)
		}
		for _, k := range []string{"HOME", "TMPDIR"} {
			if _, set := opts.Env[k]; !set {
				vars[k] = t.home
			}
		}
	}
	env := environ(vars, acct != nil)
	argv, err := p.ExpandStart(envMap(env))
	if err != nil {
		return nil, err
	}
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		if _, err := os.Stat(filepath.Join(dir, argv[0])); err != nil {
			return nil, fmt.Errorf("target %s: %s not found in %s; run its install script (bash %s %s)",
				p.Name, argv[0], p.Dir, p.Local.Install, p.Dir)
		}
	}
	if err := supervise.RunnableBy(acct, dir, argv[0]); err != nil {
		return nil, fmt.Errorf("target %s runs as %s: %w", p.Name, acct.Name, err)
	}
	if t.proc, err = supervise.Start(supervise.Spec{Name: "target " + p.Name, Argv: argv, Dir: dir, Env: env, RunAs: acct, LogFile: opts.LogFile, CPUs: opts.CPUs, Cgroup: opts.Cgroup}); err != nil {
		return nil, err
	}
	proc := t.proc
	timeout := opts.ReadyTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	if err = t.waitHealthy(ctx, timeout); err == nil && vars[HostVar] == "127.0.0.1" {
		err = t.loopbackOnly()
	}
	if err != nil {
		_ = proc.Stop(syscall.SIGTERM, 5*time.Second)
		return nil, err
	}
	return t, nil
}

func targetVars(opts TargetOptions, port int) map[string]string {
	orDefault := func(v, def int) string {
		if v == 0 {
			v = def
		}
		return strconv.Itoa(v)
	}
	vars := map[string]string{
		HostVar:       "127.0.0.1", // nothing of a local run is reachable from another machine
		"PORT":        strconv.Itoa(port),
		"WORKERS":     orDefault(opts.Workers, 1),
		"DB_POOL_MIN": orDefault(opts.PoolMin, 5),
		"DB_POOL_MAX": orDefault(opts.PoolMax, 15),
		"DB_PREPARED": "on",
	}
	if opts.Prepared != "" {
		vars["DB_PREPARED"] = opts.Prepared
	}
	if opts.DatabaseURL != "" {
		vars["DATABASE_URL"] = opts.DatabaseURL
	}
	for k, v := range opts.Env {
		vars[k] = v
	}
	return vars
}

// inheritedByOtherUser are the only variables of this process a target run as another user
// (TargetUser, when root starts it) inherits: what finds its runtime and sets its locale.
// Root's tokens, cloud credentials (AWS_*), agent sockets (SSH_AUTH_SOCK) and runtime
// options (NODE_OPTIONS, PYTHONPATH) are not the target's.
var inheritedByOtherUser = []string{"PATH", "LANG", "LANGUAGE", "TZ"}

// inherits says whether a variable of this process reaches a target.
func inherits(name string, otherUser bool) bool {
	for _, c := range contractVars {
		if name == c {
			return false // the contract's variables come from vars alone
		}
	}
	if !otherUser {
		return true
	}
	for _, a := range inheritedByOtherUser {
		if name == a {
			return true
		}
	}
	return strings.HasPrefix(name, "LC_")
}

// environ is vars plus what the target inherits of this process's environment: all of it
// (but the contract's variables) for a target run as the caller, only inheritedByOtherUser
// for one run as another user.
func environ(vars map[string]string, otherUser bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := vars[name]; set {
			continue
		}
		if inherits(name, otherUser) {
			env = append(env, kv)
		}
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func (t *Target) waitHealthy(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for time.Now().Before(deadline) {
		select {
		case <-t.proc.Done():
			return fmt.Errorf("target %s exited while starting (%v)\n%s", t.Name, t.proc.ExitErr(), supervise.Indent(t.proc.Tail()))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.URL+"/healthz", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = "GET /healthz answered " + resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("target %s not healthy within %s: %s\n%s", t.Name, timeout, last, supervise.Indent(t.proc.Tail()))
}

// loopbackOnly fails when a process of the target listens beyond loopback: a preset that
// ignores HOST would be reachable from other machines for the whole run.
func (t *Target) loopbackOnly() error {
	ls, err := supervise.Listeners(supervise.GroupMembers(t.Pid()))
	if err != nil {
		return fmt.Errorf("target %s: listing its sockets: %w", t.Name, err)
	}
	for _, l := range ls {
		if !l.Addr.Addr().IsLoopback() {
			return fmt.Errorf("target %s listens on %s (pid %d) although HOST=127.0.0.1: the local mode exposes nothing beyond loopback; the preset must read HOST (targets/CONTRACT.md)",
				t.Name, l.Addr, l.PID)
		}
	}
	return nil
}

// Pid is the target's leader process id (also its process group).
func (t *Target) Pid() int { return t.proc.Pid() }

// Tail is the end of the target's output.
func (t *Target) Tail() string { return t.proc.Tail() }

// Done is closed when the target's leader process has exited.
func (t *Target) Done() <-chan struct{} { return t.proc.Done() }

// Stop sends SIGTERM, as Kubernetes does, and kills the whole group after timeout (0: 10 s,
// the contract's limit). It returns an error unless the target exited 0 in time and left no
// process behind.
func (t *Target) Stop(timeout time.Duration) error {
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	err := t.proc.Stop(syscall.SIGTERM, timeout)
	if rmErr := t.removeFolders(); err == nil {
		err = rmErr
	}
	return err
}

// removeFolders removes the target's HOME and its staged copy, if any.
func (t *Target) removeFolders() error {
	var errs []error
	for _, d := range []*string{&t.home, &t.staged} {
		if *d != "" {
			errs = append(errs, os.RemoveAll(*d))
			*d = ""
		}
	}
	return errors.Join(errs...)
}

// Uid is the user id the target's leader runs as, read from /proc (for checks and tests).
func (t *Target) Uid() (int, error) { return supervise.ProcUID(t.Pid()) }
