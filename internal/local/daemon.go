package local

import (
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
