package verify

import (
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/test/hostile"
)

// hostileTimeout is the per-request timeout the hostile cases run under.
const hostileTimeout = time.Second

// Every hostile answer ends as a failed check that says what happened, within the request
// timeout, with the verifier's memory bounded, and a redirect is never followed.
func TestHostileTargetsFailCleanly(t *testing.T) {
	cases := []struct {
		mode      hostile.Mode
		endpoints []preset.Endpoint
		want      string // in the detail of the failed /api/ping (or cpu-primes) request
	}{
		{hostile.EndlessBody, eps(preset.Ping), "body larger than 65536 bytes"},
		{hostile.EndlessBody, eps(preset.CPUPrimes), "body larger than 1048576 bytes"},
		{hostile.HugeHeaders, eps(preset.Ping), "server response headers exceeded 65536 bytes"},
		{hostile.Redirect, eps(preset.Ping), "expected 200, got 302 (a redirect to \"http://127.0.0.1:"},
		{hostile.Slow, eps(preset.Ping), "context deadline exceeded"},
		{hostile.CloseMidResponse, eps(preset.Ping), "unexpected EOF"},
	}
	peak := sampleHeap(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var servers []*hostile.Server
	for _, c := range cases {
		srv, err := hostile.Start(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
		t.Cleanup(srv.Close)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		rep, err := Verify(context.Background(), Options{BaseURL: srv.URL, Endpoints: c.endpoints, Timeout: hostileTimeout})
		elapsed := time.Since(start)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		if rep.Passed() {
			t.Errorf("%s: the report passed", c.mode)
		}
		// Each request is bounded by its timeout (cpu-primes' default N gets 12 times as long);
		// the bound is that sum, not a performance figure.
		budget := time.Duration(requestsSent(c.endpoints)) * hostileTimeout
		if elapsed > budget+2*time.Second {
			t.Errorf("%s: verification took %s, more than its requests' timeouts (%s)", c.mode, elapsed, budget)
		}
		failed := strings.Join(rep.Failures(), "\n")
		if !strings.Contains(failed, c.want) {
			t.Errorf("%s: no failed check says %q:\n%s", c.mode, c.want, failed)
		}
		for _, f := range rep.Failures() {
			if len(f) > 2*MaxDetailBytes {
				t.Errorf("%s: failure of %d bytes: %.200s", c.mode, len(f), f)
			}
		}
		if hits := srv.SinkHits(); hits != 0 {
			t.Errorf("%s: the redirect target was contacted %d times", c.mode, hits)
		}
		t.Logf("%s %v: %s, %d requests, %d failed checks, server sent %d KiB, %d KiB allocated; first: %.160s",
			c.mode, c.endpoints, elapsed.Round(time.Millisecond), srv.Requests(), len(rep.Failures()), srv.BytesSent()>>10,
			(m1.TotalAlloc-m0.TotalAlloc)>>10, rep.Failures()[0])
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	// What an unbounded reader would have taken: the endless body read with the same deadline.
	unbounded := drain(t, servers[0].URL, hostileTimeout)
	t.Logf("allocated %d KiB in all (peak heap %d KiB, from %d KiB before); an unbounded read of the endless body for %s takes %d MiB",
		allocated>>10, peak()>>10, before.HeapAlloc>>10, hostileTimeout, unbounded>>20)
	const bound = 32 << 20
	if allocated > bound {
		t.Errorf("the verifier allocated %d MiB against hostile targets, more than %d MiB", allocated>>20, bound>>20)
	}
	if unbounded < 4*bound {
		t.Logf("note: this machine streamed only %d MiB in %s; the bound still holds", unbounded>>20, hostileTimeout)
	}
}

// requestsSent counts the requests Verify sends for endpoints, in units of the request
// timeout: healthz, not-found, two keep-alive requests, Connection: close, then each
// endpoint's own.
func requestsSent(endpoints []preset.Endpoint) int {
	n := 5
	for _, e := range endpoints {
		switch e {
		case preset.Ping:
			n++
		case preset.CPUPrimes:
			n += 12*1 + 2 + 3 // default N with 12 times the timeout, n=30, n=2, three 400s
		default:
			n += 10
		}
	}
	return n
}

// sampleHeap records the largest HeapAlloc seen until the test ends.
func sampleHeap(t *testing.T) func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
	return peak.Load
}

// drain reads the endless body for d with no limit, discarding it, and says how much came.
func drain(t *testing.T, url string, d time.Duration) int64 {
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(d))
	if _, err := io.WriteString(conn, "GET /api/ping HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, conn)
	return n
}
