package wireagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
	"github.com/gauntlet-bench/gauntlet/internal/wire/wiretest"
)

// testPod is a network namespace with one veth pair to the host, made by the test (as a
// CNI makes a pod's): the host side named host, the pod's address addr. Cleanup removes
// the namespace, which takes both ends of the pair with it.
type testPod struct {
	ns, host, peer string // peer: the pod's end, inside ns
	addr           netip.Addr
}

// podsMade numbers the test pods of this process: names and addresses derive from the pid
// and this number, so tests in other processes (other packages, other checkouts) and a
// second pod of the same test never collide.
var podsMade atomic.Int32

// maxPodsPerProcess is how many test pods a process may make: each takes a /30 of
// 10.231.0.0/16, whose 16,384 blocks are shared out by pid.
const maxPodsPerProcess = 4

func newTestPod(t *testing.T) testPod {
	t.Helper()
	seq := int(podsMade.Add(1)) - 1
	if seq >= maxPodsPerProcess {
		t.Fatalf("test pod %d: at most %d per process", seq+1, maxPodsPerProcess)
	}
	id := (os.Getpid()%(16384/maxPodsPerProcess))*maxPodsPerProcess + seq // the /30's number, below 16,384
	block := func(host byte) netip.Addr {
		return netip.AddrFrom4([4]byte{10, 231, byte(id >> 6), byte(id&63)*4 + host})
	}
	p := testPod{ns: fmt.Sprintf("gauntlet-wt-%d", id), host: fmt.Sprintf("gwth%d", id), addr: block(2)}
	hostAddr := block(1)
	peer := fmt.Sprintf("gwtp%d", id)
	p.peer = peer
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	ip("netns", "add", p.ns)
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", p.ns).Run()
		_ = exec.Command("ip", "link", "del", p.host).Run() // gone with the namespace unless that failed
	})
	ip("link", "add", p.host, "type", "veth", "peer", "name", peer)
	ip("link", "set", peer, "netns", p.ns)
	ip("addr", "add", hostAddr.String()+"/30", "dev", p.host)
	ip("link", "set", p.host, "up")
	ip("-n", p.ns, "addr", "add", p.addr.String()+"/30", "dev", peer)
	ip("-n", p.ns, "link", "set", peer, "up")
	ip("-n", p.ns, "link", "set", "lo", "up")
	return p
}

// listen opens a TCP listener inside the pod's namespace; the socket stays in it.
func (p testPod) listen(t *testing.T) net.Listener {
	t.Helper()
	var ln net.Listener
	p.inNetns(t, func() (err error) {
		ln, err = net.Listen("tcp4", p.addr.String()+":0")
		return err
	})
	return ln
}

// inNetns runs f on a thread moved into the pod's namespace and never given back (the
// thread ends with its goroutine). Sockets f opens stay in the namespace whichever thread
// uses them later.
func (p testPod) inNetns(t *testing.T, f func() error) {
	t.Helper()
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // no Unlock: the thread is discarded with this goroutine
		ns, err := os.Open(filepath.Join("/var/run/netns", p.ns))
		if err != nil {
			errc <- err
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	if err := <-errc; err != nil {
		t.Fatalf("in namespace %s: %v", p.ns, err)
	}
}

// A real capture through the agent's API: a Go HTTP server in a namespace behind a veth
// pair, requests from the host. The agent counts exactly the client's measured requests,
// on the pod's host-side veth, and its latencies match the server's.
func TestAgentCapturesAPodBehindAVeth(t *testing.T) {
	testenv.Long(t)
	if os.Geteuid() != 0 {
		// Without root there is no namespace to make; the capture itself says why it cannot run.
		_, err := NodeCapturer(wire.Endpoint{Addr: netip.MustParseAddr("10.0.0.1"), Port: 80})
		if !errors.Is(err, wire.ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	pod := newTestPod(t)
	ln := pod.listen(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(20 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "ok")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	agent, client := newAgent(t, NodeCapturer)
	// The independent capture of the same packets, on the same veth.
	dump := wiretest.StartTcpdump(t, pod.host, fmt.Sprintf("tcp port %d", port))
	ctx := context.Background()
	q := StartRequest{ID: "ns/trial-1/pod", PodIP: pod.addr.String(), Port: port, Seconds: 60}
	if err := client.Start(ctx, agent.URL, q); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://%s:%d", pod.addr, port)
	sent := 0
	var clientSaw []int64 // the measured requests' latencies as the client saw them, µs
	send := func(hc *http.Client, path, phase string, n int) {
		for range n {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Header.Set("Gauntlet-Phase", phase)
			began := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if phase == "measure" {
				sent++
				clientSaw = append(clientSaw, time.Since(began).Microseconds())
			}
		}
	}
	keep := &http.Client{Transport: &http.Transport{}}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send(keep, "/", "warmup", 7)
	send(keep, "/", "measure", 200)
	send(fresh, "/", "measure", 50)
	send(keep, "/slow", "measure", 3)
	time.Sleep(50 * time.Millisecond) // the last segments reach the socket
	f, err := client.Stop(ctx, agent.URL, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Error != "" || f.Requests != int64(sent) || f.Unanswered != 0 || f.DroppedPackets != 0 || f.Other != 7 {
		t.Fatalf("requests %d (client sent %d) unanswered %d dropped %d other %d error %q",
			f.Requests, sent, f.Unanswered, f.DroppedPackets, f.Other, f.Error)
	}
	if f.Interface != pod.host {
		t.Errorf("read on %q, want the pod's host-side veth %q", f.Interface, pod.host)
	}
	// The three slow requests are the top 1.2%: p99 and max show the 20 ms sleep, p50 not.
	// No exchange through a veth and a Go server takes under 3 µs: a p50 below it means
	// packets stamped when read rather than when they passed (kernel stamping still off).
	if f.P99Micros < 20_000 || f.MaxMicros < 20_000 || f.MaxMicros > 1_000_000 || f.P50Micros < 3 || f.P50Micros >= 20_000 {
		t.Errorf("latencies do not match the server: %+v", f)
	}
	// Each request's wire interval lies inside the client's (the request leaves the client
	// before it crosses the veth, the response crosses it before the client reads it), so
	// every wire percentile is at most the client's, to the histogram's 0.1%.
	slices.Sort(clientSaw)
	at := func(q float64) int64 { return clientSaw[max(int(math.Ceil(q*float64(len(clientSaw))))-1, 0)] }
	for _, c := range []struct {
		name         string
		wire, client int64
	}{{"p50", f.P50Micros, at(0.5)}, {"p99", f.P99Micros, at(0.99)}, {"max", f.MaxMicros, at(1)}} {
		if float64(c.wire) > float64(c.client)*1.001+1 {
			t.Errorf("wire %s %d µs above the client's %d µs", c.name, c.wire, c.client)
		}
	}
	t.Logf("wire p50/p99/max %d/%d/%d µs, client %d/%d/%d µs", f.P50Micros, f.P99Micros, f.MaxMicros, at(0.5), at(0.99), at(1))
	var n int64
	for _, b := range f.Buckets {
		n += b.Count
	}
	if n != int64(sent) {
		t.Errorf("buckets hold %d latencies, want %d", n, sent)
	}
	// tcpdump's stamps of the same packets give the same figures, within 1% or the stated
	// uncertainty: the agent stamps where libpcap does (docs/measurement.md).
	theirs := dump.Stop(t, wire.Endpoint{Addr: pod.addr, Port: uint16(port)})
	if theirs.Requests != f.Requests {
		t.Errorf("tcpdump paired %d measured requests, the agent %d", theirs.Requests, f.Requests)
	}
	for _, c := range []struct {
		name string
		q    float64
		ours int64
	}{{"p50", 0.5, f.P50Micros}, {"p99", 0.99, f.P99Micros}} {
		them := theirs.Latency.Quantile(c.q) / 1000
		allowed := max(them/100, wire.UncertaintyMicros)
		if c.ours-them > allowed || them-c.ours > allowed {
			t.Errorf("%s: agent %d µs, tcpdump %d µs on the same veth: want within %d µs (1%% or %d µs)", c.name, c.ours, them, allowed, wire.UncertaintyMicros)
		}
		t.Logf("%s: agent %d µs, tcpdump %d µs", c.name, c.ours, them)
	}
	// Stopped figures stay readable: the operator may ask again after a restart.
	again, err := client.Stop(ctx, agent.URL, q.ID)
	if err != nil || again.Requests != f.Requests {
		t.Errorf("second stop: %+v, %v", again, err)
	}
}

// newAgent serves the agent's handler over TLS with capturer, admitting the token
// "s3cret", and a client trusting the agent's CA and holding that token.
func newAgent(t *testing.T, c Capturer) (*httptest.Server, *Client) {
	t.Helper()
	srv, ca := serveTLS(t, (&Server{Capture: c, Auth: tokenIs("s3cret")}).Handler(), time.Now())
	return srv, testClient(t, ca, "s3cret\n")
}
