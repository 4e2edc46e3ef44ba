package supervise

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// Proc is what the project reads of one process's /proc/<pid>/stat.
type Proc struct {
	State string // R, S, D, Z (zombie), X (dead), ...
	PPID  int
	PGID  int
	Ticks int64 // utime + stime, in clock ticks
}

// Live is false for zombies and dead entries: they cannot be signalled away.
func (p Proc) Live() bool { return p.State != "Z" && p.State != "X" }

// Procs reads every process in /proc; the one place the local mode and its tests read it.
func Procs() map[int]Proc {
	all, err := procfs.AllProcs()
	if err != nil {
		return nil
	}
	out := make(map[int]Proc, len(all))
	for _, p := range all {
		st, err := p.Stat()
		if err != nil {
			continue // exited meanwhile
		}
		out[p.PID] = Proc{State: st.State, PPID: st.PPID, PGID: st.PGRP, Ticks: int64(st.UTime + st.STime)}
	}
	return out
}

// ProcUID is the real user id of a process: which user a target really runs as.
func ProcUID(pid int) (int, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0, err
	}
	return int(st.UIDs[0]), nil
}

// Listener is a listening TCP socket and the process holding it.
type Listener struct {
	PID  int
	Addr netip.AddrPort
}

// tcpListen is the LISTEN state in /proc/net/tcp (include/net/tcp_states.h).
const tcpListen = 0x0A

// Listeners lists the listening TCP sockets (IPv4 and IPv6) held open by pids: each
// process's socket inodes from its fds, matched with the LISTEN rows of its network
// namespace's tcp and tcp6 tables (/proc/<pid>/net). Reading another user's fds needs root
// or the same user.
func Listeners(pids []int) ([]Listener, error) {
	var out []Listener
	for _, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			continue // exited meanwhile
		}
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			if _, gone := procfs.NewProc(pid); gone != nil {
				continue
			}
			return nil, err
		}
		inodes := map[uint64]bool{}
		for _, target := range targets {
			if ino, ok := strings.CutPrefix(target, "socket:["); ok {
				if n, err := strconv.ParseUint(strings.TrimSuffix(ino, "]"), 10, 64); err == nil {
					inodes[n] = true
				}
			}
		}
		if len(inodes) == 0 {
			continue
		}
		// The process's own view of the network: /proc/<pid>/net is its namespace's.
		ns, err := procfs.NewFS("/proc/" + strconv.Itoa(pid))
		if err != nil {
			continue
		}
		// /proc/<pid>/net is the process's own namespace's table; sock_diag over netlink, which
		// procfs points to instead, would need that namespace entered.
		for _, table := range []func() (procfs.NetTCP, error){ns.NetTCP, ns.NetTCP6} { //nolint:staticcheck // see above
			rows, err := table()
			if err != nil {
				continue // no IPv6 in this kernel, or exited
			}
			for _, r := range rows {
				addr, ok := netip.AddrFromSlice(r.LocalAddr)
				if r.St == tcpListen && inodes[r.Inode] && ok {
					out = append(out, Listener{PID: pid, Addr: netip.AddrPortFrom(addr.Unmap(), uint16(r.LocalPort))})
				}
			}
		}
	}
	return out, nil
}
