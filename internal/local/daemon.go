package local

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// daemon is a server process with a working folder of its own (PostgreSQL, PgBouncer):
// stopping it stops the process group and removes the folder.
type daemon struct {
	Dir  string // removed by Stop
	proc *Process
}

// Pid is the process id (also its process group); 0 once stopped.
func (d *daemon) Pid() int {
	if d.proc == nil {
		return 0
	}
	return d.proc.Pid()
}

// stop sends sig, kills the group after timeout, and removes the folder. Safe to call twice.
func (d *daemon) stop(sig syscall.Signal, timeout time.Duration) error {
	var err error
	if d.proc != nil {
		err = d.proc.Stop(sig, timeout)
		d.proc = nil
	}
	if d.Dir != "" {
		if rmErr := os.RemoveAll(d.Dir); rmErr != nil && err == nil {
			err = rmErr
		}
		d.Dir = ""
	}
	return err
}

// waitReady polls probe until it succeeds; it fails at once, with the log tail, when the
// process exits, and after timeout with the probe's last error.
func (d *daemon) waitReady(ctx context.Context, name string, timeout time.Duration, probe func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-d.proc.Done():
			return fmt.Errorf("%s exited while starting (%v)\n%s", name, d.proc.ExitErr(), indent(d.proc.Tail()))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if last = probe(ctx); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready within %s: %v\n%s", name, timeout, last, indent(d.proc.Tail()))
}
