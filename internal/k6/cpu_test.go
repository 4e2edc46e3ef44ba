package k6

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuTicks counts a busy child's CPU time: it grows while the child spins.
func TestCPUTicksOfABusyChild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(300 * time.Millisecond)
	got, err := cpuTicks(cmd.Process.Pid)
	if err != nil || got < 1 {
		t.Fatalf("cpuTicks of a spinning shell after 300 ms: %d, %v", got, err)
	}
	if _, err := cpuTicks(1 << 30); err == nil {
		t.Error("cpuTicks of no such process: no error")
	}
}

func TestMeanCores(t *testing.T) {
	t0 := time.Now()
	if c := meanCores(cpuSample{t0, 100}, cpuSample{t0.Add(2 * time.Second), 400}); c != 1.5 {
		t.Errorf("300 ticks in 2 s = %v cores, want 1.5", c)
	}
	if c := meanCores(cpuSample{t0, 0}, cpuSample{t0, 5}); c != -1 {
		t.Errorf("no wall time: %v", c)
	}
}

// The reading of a real process agrees with the kernel's rusage of the same process
// (the machine is shared, so wall time says little about CPU time; rusage does).
func TestCPUTicksOfThisProcess(t *testing.T) {
	before, err := cpuTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	r0 := rusageTicks(t)
	x := 0
	for deadline := time.Now().Add(20 * time.Second); rusageTicks(t)-r0 < 30 && time.Now().Before(deadline); {
		for range 100000 {
			x++
		}
	}
	after, _ := cpuTicks(os.Getpid())
	used, want := after-before, rusageTicks(t)-r0
	if want < 30 || used < want-5 || used > want+5 {
		t.Errorf("/proc says %d ticks, rusage %d (x=%d)", used, want, x)
	}
}

func rusageTicks(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	us := ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec
	return us / (1e6 / userHZ)
}

func TestWindowCores(t *testing.T) {
	t0 := time.Now()
	full := window{start: cpuSample{t0, 100}, end: cpuSample{t0.Add(time.Second), 150}, hasStart: true, hasEnd: true}
	if c := full.cores(nil, time.Time{}); c != 0.5 {
		t.Errorf("both samples: %v cores, want 0.5", c)
	}
	if c := (window{}).cores(nil, time.Time{}); c != -1 {
		t.Errorf("no start sample: %v, want -1", c)
	}
	if c := (window{start: cpuSample{t0, 1}, hasStart: true}).cores(nil, t0.Add(time.Second)); c != -1 {
		t.Errorf("no end sample and no exit state: %v, want -1", c)
	}
	// The exit state of a real process that burnt some CPU stands in for the end sample.
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	w := window{start: cpuSample{t0, 0}, hasStart: true}
	used := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if c := w.cores(cmd.ProcessState, t0.Add(time.Second)); c < used-0.011 || c > used+0.011 || c <= 0 {
		t.Errorf("from exit state: %v cores, want ~%v", c, used)
	}
}
