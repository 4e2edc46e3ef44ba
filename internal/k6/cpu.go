package k6

import (
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the kernel's USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture Gauntlet runs on (amd64, arm64); Go cannot ask sysconf without cgo.
const userHZ = 100

// cpuTicks is a process's user + system CPU time, all threads, in USER_HZ ticks.
func cpuTicks(pid int) (int64, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return int64(st.UTime + st.STime), nil
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
