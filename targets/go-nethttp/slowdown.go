package main

import (
	"net/http"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID: the CPU time of the calling thread.
const clockThreadCPUTime = 3

// withExtraCPU burns d of CPU time in every request before handling it: a known slowdown
// for regression tests (EXTRA_CPU_MICROS). It is CPU time, not wall time, so a request
// descheduled by the kernel still costs d of work and no more. With d = 0 the handler is
// returned as it is: the target's normal behaviour does not change at all.
func withExtraCPU(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		burnCPU(d)
		next.ServeHTTP(w, r)
	})
}

// burnCPU spins until the thread has used d of CPU. The goroutine does not yield in the
// loop, so it stays on one thread and the thread clock is its own.
func burnCPU(d time.Duration) {
	start := threadCPU()
	x := uint64(1)
	for threadCPU()-start < d {
		for i := 0; i < 200; i++ { // about a microsecond of arithmetic between clock reads
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
}

// sink keeps the arithmetic from being optimised away.
var sink uint64

func threadCPU() time.Duration {
	var ts syscall.Timespec
	_, _, _ = syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// withSerialWait makes every request wait d while holding one process-wide lock: a server
// that serves one request at a time at a fixed cost, so its capacity is known beforehand
// (about 1/d) whatever else the machine runs (EXTRA_WAIT_MICROS, for capacity-search
// tests). With d = 0 the handler is returned as it is.
func withSerialWait(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		time.Sleep(d)
		mu.Unlock()
		next.ServeHTTP(w, r)
	})
}
