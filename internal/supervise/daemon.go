package supervise

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Daemon is a server process with a working folder of its own (PostgreSQL, PgBouncer):
// stopping it stops the process group and removes the folder.
type Daemon struct {
	Dir string // removed by Stop
	// Proc is the server, set by whoever starts it and nil once stopped; exported so the
	// runner can watch it exit mid-run (its Done).
	Proc *Process
}

// Pid is the process id (also its process group); 0 once stopped.
func (d *Daemon) Pid() int {
	if d.Proc == nil {
		return 0
	}
	return d.Proc.Pid()
}

// Stop sends sig, kills the group after timeout, and removes the folder. Safe to call twice.
func (d *Daemon) Stop(sig syscall.Signal, timeout time.Duration) error {
	var err error
	if d.Proc != nil {
		err = d.Proc.Stop(sig, timeout)
		d.Proc = nil
	}
	if d.Dir != "" {
		if rmErr := os.RemoveAll(d.Dir); rmErr != nil && err == nil {
			err = rmErr
		}
		d.Dir = ""
	}
	return err
}

// WaitReady polls probe until it succeeds; it fails at once, with the log tail, when the
// process exits, and after timeout with the probe's last error. A method of the process,
// not of Daemon, so that it is not promoted into the servers that embed a Daemon.
func (p *Process) WaitReady(ctx context.Context, name string, timeout time.Duration, probe func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.Done():
			return fmt.Errorf("%s exited while starting (%v)\n%s", name, p.ExitErr(), Indent(p.Tail()))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if last = probe(ctx); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready within %s: %v\n%s", name, timeout, last, Indent(p.Tail()))
}
