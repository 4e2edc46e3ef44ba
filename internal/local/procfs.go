package local

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Proc is what the project reads of one /proc/<pid>/stat line.
type Proc struct {
	State string // R, S, D, Z (zombie), X (dead), ...
	PPID  int
	PGID  int
	Ticks int64 // utime + stime, in clock ticks
}

// Live is false for zombies and dead entries: they cannot be signalled away.
func (p Proc) Live() bool { return p.State != "Z" && p.State != "X" }

// Procs reads every process in /proc; the one place the local mode and its tests parse it.
func Procs() map[int]Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]Proc, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		if p, err := parseStat(data); err == nil {
			out[pid] = p
		}
	}
	return out
}

// parseStat reads state, ppid, pgrp (fields 3-5) and utime + stime (fields 14, 15) of
// proc(5)'s stat line, counted from the command name's closing parenthesis, since the
// name may hold spaces.
func parseStat(stat []byte) (Proc, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Proc{}, fmt.Errorf("stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return Proc{}, fmt.Errorf("stat: %d fields after the command name", len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	utime, err3 := strconv.ParseInt(f[11], 10, 64)
	stime, err4 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return Proc{}, fmt.Errorf("stat: malformed numbers")
	}
	return Proc{State: f[0], PPID: ppid, PGID: pgid, Ticks: utime + stime}, nil
}

// procUid is the real user id of a process, from the Uid line of /proc/<pid>/status.
func procUid(pid int) (int, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return strconv.Atoi(f[0])
			}
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no Uid line", pid)
}

// Listener is a listening TCP socket and the process holding it.
type Listener struct {
	PID  int
	Addr netip.AddrPort
}

// Listeners lists the listening TCP sockets (IPv4 and IPv6) held open by pids: each
// process's socket inodes from /proc/<pid>/fd, matched with the LISTEN rows of its network
// namespace's /proc/<pid>/net/tcp and tcp6. Reading another user's fds needs root or the
// same user.
func Listeners(pids []int) ([]Listener, error) {
	var out []Listener
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid)
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			if os.IsNotExist(err) {
				continue // exited meanwhile
			}
			return nil, err
		}
		inodes := map[string]bool{}
		for _, fd := range fds {
			if target, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil {
				if ino, ok := strings.CutPrefix(target, "socket:["); ok {
					inodes[strings.TrimSuffix(ino, "]")] = true
				}
			}
		}
		if len(inodes) == 0 {
			continue
		}
		for _, table := range []string{"tcp", "tcp6"} {
			data, err := os.ReadFile(dir + "/net/" + table)
			if err != nil {
				continue // no IPv6 in this kernel, or exited
			}
			for _, l := range listenRows(data) {
				if inodes[l.inode] {
					out = append(out, Listener{PID: pid, Addr: l.addr})
				}
			}
		}
	}
	return out, nil
}

type listenRow struct {
	addr  netip.AddrPort
	inode string
}

// listenRows parses proc(5)'s /proc/net/tcp{,6}: rows in state 0A (LISTEN), local address
// as hex (each 32-bit word of the network-order address printed as a host integer) and
// port, inode field 10.
func listenRows(data []byte) []listenRow {
	var rows []listenRow
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		hexAddr, hexPort, ok := strings.Cut(f[1], ":")
		raw, err1 := hex.DecodeString(hexAddr)
		port, err2 := strconv.ParseUint(hexPort, 16, 16)
		if !ok || err1 != nil || err2 != nil || (len(raw) != 4 && len(raw) != 16) {
			continue
		}
		for i := 0; i+4 <= len(raw); i += 4 { // the kernel printed each word as a host integer
			binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
		}
		addr, _ := netip.AddrFromSlice(raw)
		rows = append(rows, listenRow{addr: netip.AddrPortFrom(addr.Unmap(), uint16(port)), inode: f[9]})
	}
	return rows
}
