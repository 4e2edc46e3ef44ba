package wireagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// hostileConns is the default flood: three times a capture's connection budget, a few
// seconds of one core. GAUNTLET_HOSTILE_CONNS sets another (1000000: the full-size one).
const hostileConns = 3 * wire.DefaultMaxConns

// hostileLatest is how long after the flood the hostile pod answers its last requests:
// the widest latency a test can afford, since the kernel stamps each segment when it
// passes (a 300 s spread is TestBucketsCapped's, at the unit level).
const hostileLatest = 5 * time.Second

// Two tenants' pods on one node, both captured at once through the agent's API: tenant
// A's pod is hostile (it is flooded with far more connections than a capture follows, and
// answers at times spread from microseconds to seconds), tenant B's is an honest HTTP
// server answering k requests during the flood. The agent's live heap stays far inside
// the chart's 128Mi limit; B's capture counts exactly its k requests, with latencies no
// larger than its client saw; A's counts what it followed and reports the rest as refused
// (incomplete, never wrong).
func TestAgentHostileTargetBesideAnotherTenant(t *testing.T) {
	testenv.Long(t)
	if os.Geteuid() != 0 {
		// Without root there is no namespace to make; the capture itself says why it cannot run.
		_, err := NodeCapturer(wire.Endpoint{Addr: netip.MustParseAddr("10.0.0.1"), Port: 80})
		if !errors.Is(err, wire.ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	conns := hostileConns
	if v := os.Getenv("GAUNTLET_HOSTILE_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= wire.DefaultMaxConns {
			t.Fatalf("GAUNTLET_HOSTILE_CONNS %q: want a number of connections above the budget, %d", v, wire.DefaultMaxConns)
		}
		conns = n
	}
	const budget = wire.DefaultMaxConns
	const k = 2000 // B's requests

	hostile, honest := newTestPod(t), newTestPod(t)
	ln := honest.listen(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	const hostilePort = 8080
	fl := newFlood(t, hostile, hostilePort)
	agent, client := newAgent(t, NodeCapturer)
	ctx := context.Background()
	qa := StartRequest{ID: "tenant-a/run-1/target", Tenant: "tenant-a", PodIP: hostile.addr.String(), Port: hostilePort, Seconds: 300}
	qb := StartRequest{ID: "tenant-b/run-1/target", Tenant: "tenant-b", PodIP: honest.addr.String(),
		Port: ln.Addr().(*net.TCPAddr).Port, Seconds: 300}

	base := liveHeap()
	peak := sampleHeap()
	both := func(f func(q StartRequest) error) {
		t.Helper()
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, q := range []StartRequest{qa, qb} {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = f(q) }()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	both(func(q StartRequest) error { return client.Start(ctx, agent.URL, q) })

	// B's client, 1 ms between requests: it runs through the flood and into the late
	// answers. Every tenth request opens a connection of its own: new connections during
	// the flood are what a budget shared with A would refuse.
	type honestRun struct {
		saw        []int64 // µs, as the client saw them
		began, end time.Time
		err        error
	}
	honestDone := make(chan honestRun, 1)
	go func() {
		r := honestRun{began: time.Now()}
		keep := &http.Client{Transport: &http.Transport{}}
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		for i := range k {
			hc := keep
			if i%10 == 0 {
				hc = fresh
			}
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/", ln.Addr()), nil)
			req.Header.Set("Gauntlet-Phase", "measure")
			began := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				r.err = err
				break
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			r.saw = append(r.saw, time.Since(began).Microseconds())
			time.Sleep(time.Millisecond)
		}
		r.end = time.Now()
		honestDone <- r
	}()

	// The flood: the first budget connections are followed, the rest refused. Of the
	// followed, i%64 == 0 is answered at once, i%64 == 1 never, the rest in waves after the
	// flood. Refused connections are answered too: an answer on a connection the capture
	// does not follow is no figure.
	// Paced so that no socket overflows (a capture's buffer is 2 × wire.ReceiveBuffer as
	// the kernel counts it): every 256 connections (about 512 segments of about 1 KiB each
	// as the kernel charges them) the flood waits until at most half a ReceiveBuffer is
	// unread; the answers of each wave likewise.
	const paced, unread = 256, wire.ReceiveBuffer / 2
	floodBegan := time.Now()
	for i := range conns {
		fl.open(t, i)
		if i%64 == 0 {
			fl.answer(t, i)
		}
		if i%paced == paced-1 {
			fl.settle(t, unread)
		}
	}
	floodEnded := time.Now()
	waves := []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, hostileLatest}
	for w, d := range waves {
		time.Sleep(time.Until(floodEnded.Add(d)))
		sent := 0
		for i := range budget {
			if i%64 >= 2 && (i%64-2)%len(waves) == w {
				fl.answer(t, i)
				if sent++; sent%paced == 0 {
					fl.settle(t, unread)
				}
			}
		}
	}
	hr := <-honestDone
	if hr.err != nil {
		t.Fatalf("tenant B's client, after %d requests: %v", len(hr.saw), hr.err)
	}
	time.Sleep(50 * time.Millisecond) // the last segments reach the sockets
	held := liveHeap() - base         // both captures running, every followed connection still open
	var fa, fb Figures
	both(func(q StartRequest) error {
		f, err := client.Stop(ctx, agent.URL, q.ID)
		if q.ID == qa.ID {
			fa = f
		} else {
			fb = f
		}
		return err
	})
	peakHeap, sys := peak()
	t.Logf("flood: %d connections (%d segments) in %v; B's %d requests from %v to %v after it began",
		conns, fl.sent, floodEnded.Sub(floodBegan).Round(time.Millisecond),
		len(hr.saw), hr.began.Sub(floodBegan).Round(time.Millisecond), hr.end.Sub(floodBegan).Round(time.Millisecond))
	t.Logf("the agent's sockets held at most %.1f MiB unread (the flood waits above %.1f)", mib(fl.unread), mib(unread))
	t.Logf("heap: %.1f MiB live above the start with both captures running, %.1f MiB at most in use (live and garbage), %.1f MiB from the OS",
		mib(held), mib(peakHeap), mib(sys))
	t.Logf("tenant A: %+v", withoutBuckets(fa))
	t.Logf("tenant B: %+v", withoutBuckets(fb))

	// The agent's heap: what the flood makes it hold is bounded by the budget, far inside
	// the chart's 128Mi (which also holds the runtime, the stacks and the binary).
	if held > 16<<20 || sys > 64<<20 {
		t.Errorf("the flood left %.1f MiB live (want at most 16) and %.1f MiB taken from the OS (want at most 64)", mib(held), mib(sys))
	}

	// Tenant B: complete, and its latencies a Go server's on a veth, as its client saw them.
	if fb.Error != "" || fb.Requests != k || fb.Unanswered != 0 || fb.Refused != 0 || fb.DroppedPackets != 0 || fb.Other != 0 {
		t.Errorf("tenant B: requests %d (want %d) unanswered %d refused %d dropped %d other %d error %q: want its requests, all answered",
			fb.Requests, k, fb.Unanswered, fb.Refused, fb.DroppedPackets, fb.Other, fb.Error)
	}
	if fb.Interface != honest.host {
		t.Errorf("tenant B read on %q, want its pod's veth %q", fb.Interface, honest.host)
	}
	slices.Sort(hr.saw)
	at := func(q float64) int64 { return hr.saw[max(int(math.Ceil(q*float64(len(hr.saw))))-1, 0)] }
	if fb.P50Micros < 3 || float64(fb.P50Micros) > float64(at(0.5))*1.001+1 || float64(fb.MaxMicros) > float64(at(1))*1.001+1 {
		t.Errorf("tenant B: wire p50 %d µs, max %d µs; its client saw %d and %d: want the wire's at least 3 µs and at most the client's",
			fb.P50Micros, fb.MaxMicros, at(0.5), at(1))
	}
	if n := bucketCount(fb); n != k {
		t.Errorf("tenant B's buckets hold %d latencies, want %d", n, k)
	}

	// Tenant A: exactly the followed connections' requests, the rest refused; the followed
	// ones answered as the flood answered them.
	immediate, never := int64(budget/64), int64(budget/64)
	if fa.Error != "" || fa.DroppedPackets != 0 || fa.Requests != budget || fa.Refused != int64(conns-budget) || fa.Unanswered != never {
		t.Errorf("tenant A: requests %d (want %d) refused %d (want %d) unanswered %d (want %d) dropped %d error %q",
			fa.Requests, budget, fa.Refused, conns-budget, fa.Unanswered, never, fa.DroppedPackets, fa.Error)
	}
	if fa.Interface != hostile.host {
		t.Errorf("tenant A read on %q, want its pod's veth %q", fa.Interface, hostile.host)
	}
	var h wire.Histogram
	h.Merge(fa.Buckets, fa.MaxNanos)
	if h.Count() != budget-never {
		t.Errorf("tenant A's buckets hold %d latencies, want %d", h.Count(), budget-never)
	}
	// At once: under a millisecond (1.6% of them); the last wave: from hostileLatest to it
	// plus the flood's length (the 20% above p80); nothing later.
	if p := time.Duration(h.Quantile(float64(immediate) / float64(budget-never) / 2)); p > time.Millisecond {
		t.Errorf("tenant A: the answers at once measured %v: want under 1 ms", p)
	}
	latest := hostileLatest + floodEnded.Sub(floodBegan) + time.Second
	if p80, top := time.Duration(h.Quantile(0.81)), time.Duration(fa.MaxNanos); p80 < hostileLatest || top > latest {
		t.Errorf("tenant A: p81 %v, max %v: want the last wave's, from %v to %v", p80, top, hostileLatest, latest)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// sampleHeap watches the heap every 50 ms, without collecting, until the returned
// function is called: it gives the most in use (live and garbage) and the memory the
// runtime held from the OS at the end.
func sampleHeap() func() (peak, sys int64) {
	stop, done := make(chan struct{}), make(chan int64)
	go func() {
		var top int64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			top = max(top, int64(m.HeapAlloc))
			select {
			case <-stop:
				done <- top
				return
			case <-tick.C:
			}
		}
	}()
	return func() (int64, int64) {
		close(stop)
		top := <-done
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return top, int64(m.Sys)
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func withoutBuckets(f Figures) Figures { f.Buckets = nil; return f }

func bucketCount(f Figures) int64 {
	var n int64
	for _, b := range f.Buckets {
		n += b.Count
	}
	return n
}
