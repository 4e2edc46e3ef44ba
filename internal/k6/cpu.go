package k6

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the kernel's USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture Gauntlet runs on (amd64, arm64); Go cannot ask sysconf without cgo.
const userHZ = 100

// cpuTicks is a process's user + system CPU time, all threads, in USER_HZ ticks.
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatTicks(string(data))
}

// parseStatTicks reads utime and stime (fields 14 and 15 of proc(5)) from a stat line.
// The command name (field 2) may hold spaces and parentheses, so fields are counted
// from its closing parenthesis.
func parseStatTicks(stat string) (int64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat: no command name in %q", stat)
	}
	f := strings.Fields(stat[end+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc stat: utime %q / stime %q are not integers", f[11], f[12])
	}
	return utime + stime, nil
}

// cpuSample is one reading of a process's CPU time.
type cpuSample struct {
	at    time.Time
	ticks int64
}

// meanCores is the CPU used between two samples, in cores.
func meanCores(a, b cpuSample) float64 {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return -1
	}
	return float64(b.ticks-a.ticks) / userHZ / wall
}
