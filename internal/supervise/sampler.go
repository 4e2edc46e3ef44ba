package supervise

import (
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the unit of /proc/<pid>/stat CPU times (USER_HZ, 100 on amd64 and arm64).
const userHZ = 100

// SampleEvery is how often a target's process tree is read during the measured window.
const SampleEvery = 250 * time.Millisecond

// Usage is a target's resource use over a measured window: CPU in millicores and PSS in
// bytes, summed over its whole process tree (nginx and its workers, node:cluster, uvicorn).
type Usage struct {
	CPUMillicores, CPUPeakMillicores int64
	MemoryBytes, MemoryPeakBytes     int64
	Samples                          int
}

// SampleTree samples the tree rooted at pid from start to end, every interval, and returns
// the mean and peak of CPU and memory. It returns early, with what it has, when stop closes.
func SampleTree(pid int, start, end time.Time, every time.Duration, stop <-chan struct{}) Usage {
	var u Usage
	sleepUntil := func(t time.Time) bool {
		select {
		case <-time.After(time.Until(t)):
			return true
		case <-stop:
			return false
		}
	}
	if !sleepUntil(start) {
		return u
	}
	prev, t0 := treeTicks(pid), time.Now()
	last, total := t0, int64(0)
	var memSum int64
	for next := t0.Add(every); ; next = next.Add(every) {
		if next.After(end) {
			next = end
		}
		if !sleepUntil(next) {
			break
		}
		cur, now := treeTicks(pid), time.Now()
		var delta int64
		for p, t := range cur {
			// A process born inside the interval counts with all its CPU time.
			if before, ok := prev[p]; ok && t >= before {
				delta += t - before
			} else if !ok {
				delta += t
			}
		}
		if dt := now.Sub(last).Seconds(); dt > 0 {
			u.CPUPeakMillicores = max(u.CPUPeakMillicores, int64(float64(delta)*1000/userHZ/dt))
		}
		total += delta
		mem := treePSS(cur)
		memSum += mem
		u.MemoryPeakBytes = max(u.MemoryPeakBytes, mem)
		u.Samples++
		prev, last = cur, now
		if !next.Before(end) {
			break
		}
	}
	if u.Samples > 0 {
		u.CPUMillicores = int64(float64(total) * 1000 / userHZ / last.Sub(t0).Seconds())
		u.MemoryBytes = memSum / int64(u.Samples)
	}
	return u
}

// treeTicks is the CPU time of pid and every descendant, by pid.
func treeTicks(root int) map[int]int64 {
	all := Procs()
	children := map[int][]int{}
	for p, info := range all {
		children[info.PPID] = append(children[info.PPID], p)
	}
	out := map[int]int64{}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		info, ok := all[p]
		if !ok {
			continue
		}
		out[p] = info.Ticks
		queue = append(queue, children[p]...)
	}
	return out
}

// treePSS sums the proportional set size of the processes: shared pages (nginx workers,
// forked node workers) are split among their sharers, so the sum is what the tree costs.
func treePSS(pids map[int]int64) int64 {
	var sum int64
	for pid := range pids {
		if p, err := procfs.NewProc(pid); err == nil {
			if r, err := p.ProcSMapsRollup(); err == nil {
				sum += int64(r.Pss)
			}
		}
	}
	return sum
}
