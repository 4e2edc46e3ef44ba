//go:build !linux

package supervise

import "syscall"

// groupLeader: each process leads its own group (stopped as one); only Linux has a
// parent-death signal.
func groupLeader() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
