package supervise

import "syscall"

// groupLeader: each process leads its own group (stopped as one), and dies with us.
func groupLeader() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
