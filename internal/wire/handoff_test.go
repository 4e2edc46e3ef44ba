//go:build linux

package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Where a segment is stamped: the loopback device shows a packet socket each segment's
// transmit copy (as it leaves the sender's stack) and its receive copy (the one the capture
// keeps). The gap between the two copies of a response is the part of the wire figure that
// is the loopback hand-off rather than the target: UncertaintyMicros covers it at p99 on a
// quiet machine, and must at p90 on a busy one (README, "Where the wire figure is stamped",
// quotes this test's figures). The bound is judged on a measurement during which tasks
// seldom waited for a CPU (/proc/pressure/cpu): beside the lab (make test), with tasks
// waiting 70-80% of the time, a preempted hand-off reads 16-19 µs at p90, which says
// nothing of the figure on the nodes that measure. Up to three measurements are taken.
func TestLoopbackHandOff(t *testing.T) {
	testenv.Long(t)
	for attempt := 1; attempt <= 3; attempt++ {
		waitedBefore, at := cpuWaited(t), time.Now()
		p90, ok := measureHandOff(t)
		if !ok {
			return
		}
		waited := float64(cpuWaited(t)-waitedBefore) / float64(time.Since(at).Microseconds())
		switch {
		case waited > 0.2:
			t.Logf("measurement %d: tasks waited for a CPU %.0f%% of the time: its p90 (%d ns) is not judged", attempt, 100*waited, p90)
		case p90 > UncertaintyMicros*1000:
			t.Errorf("response hand-off p90 %d ns exceeds UncertaintyMicros (%d µs), tasks waiting for a CPU %.0f%% of the time",
				p90, UncertaintyMicros, 100*waited)
			return
		default:
			return
		}
	}
	t.Logf("every measurement ran on a contended CPU: the p90 bound was not judged this time")
}

// cpuWaited is the microseconds some task has waited for a CPU since boot (PSI's "some").
func cpuWaited(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		t.Fatalf("CPU pressure: %v", err)
	}
	for _, f := range strings.Fields(strings.SplitN(string(b), "\n", 2)[0]) {
		if v, ok := strings.CutPrefix(f, "total="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("CPU pressure: no total in %q", b)
	return 0
}

// measureHandOff stamps both copies of 2,000 requests' segments on lo and returns the
// response's hand-off p90 in ns; ok is false when this process may not open a packet socket
// (checked to be EPERM) or the measurement failed (the test is then failed).
func measureHandOff(t *testing.T) (respP90 int64, ok bool) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if os.Geteuid() != 0 {
		if !errors.Is(err, unix.EPERM) {
			t.Fatalf("unprivileged: want EPERM, got %v", err)
		}
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 64<<20)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		t.Fatal(err)
	}
	tv := unix.NsecToTimeval(int64(50 * time.Millisecond))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: lo.Index}); err != nil {
		t.Fatal(err)
	}
	// A segment is known by its direction, client port, sequence and acknowledgement numbers.
	type key struct {
		toServer bool
		cport    uint16
		seq, ack uint32
	}
	sent, received := map[key]int64{}, map[key]int64{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf, oob := make([]byte, 2048), make([]byte, unix.CmsgSpace(16))
		for idle := 0; idle < 4; {
			n, oobn, _, from, err := unix.Recvmsg(fd, buf, oob, 0)
			if err != nil {
				idle++
				continue
			}
			idle = 0
			at, ok := timestamp(oob[:oobn])
			f := buf[:n]
			if !ok || len(f) < 54 || binary.BigEndian.Uint16(f[12:14]) != 0x0800 || f[23] != 6 {
				continue
			}
			tcp := f[14+int(f[14]&0xf)*4:]
			src, dst := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
			if (src != port && dst != port) || tcp[13]&0x08 == 0 { // data segments (PSH) of the port
				continue
			}
			k := key{toServer: dst == port, cport: src, seq: binary.BigEndian.Uint32(tcp[4:8]), ack: binary.BigEndian.Uint32(tcp[8:12])}
			if !k.toServer {
				k.cport = dst
			}
			if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
				sent[k] = at
			} else {
				received[k] = at
			}
		}
	}()
	client := &http.Client{Transport: &http.Transport{}}
	base := "http://127.0.0.1:" + strconv.Itoa(int(port))
	for range 2000 {
		resp, err := client.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(200 * time.Microsecond)
	}
	<-done
	for _, toServer := range []bool{true, false} {
		var gaps []int64
		for k, at := range received {
			if s, ok := sent[k]; ok && k.toServer == toServer {
				gaps = append(gaps, at-s)
			}
		}
		if len(gaps) < 1900 {
			t.Fatalf("toServer=%v: %d segments seen in both copies, want about 2000", toServer, len(gaps))
		}
		slices.Sort(gaps)
		q := func(p float64) int64 { return gaps[int(p*float64(len(gaps)-1))] }
		what := map[bool]string{true: "request (the client's hand-off, not in the figure)", false: "response (the target's hand-off, in the figure)"}[toServer]
		t.Logf("%s: receive copy after transmit copy by p50 %d ns, p90 %d ns, p99 %d ns, max %d ns (%d segments)",
			what, q(0.5), q(0.9), q(0.99), gaps[len(gaps)-1], len(gaps))
		if gaps[0] < 0 {
			t.Errorf("%s: a receive copy stamped before its transmit copy (%d ns)", what, gaps[0])
			return 0, false
		}
		if !toServer {
			respP90 = q(0.9)
		}
	}
	return respP90, true
}
