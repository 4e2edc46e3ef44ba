package local

import (
	"bytes"
	"fmt"
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
