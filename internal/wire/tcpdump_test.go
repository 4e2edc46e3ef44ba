//go:build linux

package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The capture against an independent one of the same packets: tcpdump (libpcap's
// TPACKET_V3 ring, nanosecond stamps) on lo beside it, during the same requests. Both take
// the kernel's stamp of the frame the loopback device received; tcpdump's frames go
// through the same pairing, so what is compared is where and how each packet was stamped.
// p50 and p99 must agree within 1% or UncertaintyMicros, the larger.
func TestCaptureAgreesWithTcpdump(t *testing.T) {
	testenv.Long(t)
	if os.Geteuid() != 0 {
		if _, err := Start(80, nil); !errors.Is(err, ErrNoPrivilege) {
			t.Fatalf("unprivileged: want ErrNoPrivilege, got %v", err)
		}
		return
	}
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Fatal("this test needs tcpdump: hack/apt.sh tcpdump (make deps installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	file := filepath.Join(t.TempDir(), "lo.pcap")
	dump := exec.Command(tcpdump, "-i", "lo", "-n", "-U", "--immediate-mode", "-s", strconv.Itoa(snapLen), "-B", "32768",
		"--time-stamp-precision=nano", "-w", file, "tcp port "+strconv.Itoa(port))
	stderr, err := dump.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := dump.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dump.Process.Kill() }()
	listening := make(chan string, 1)
	var dumpLog strings.Builder
	var logMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			dumpLog.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if strings.Contains(sc.Text(), "listening on") {
				listening <- sc.Text()
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("tcpdump did not start listening")
	}
	c, err := Start(port, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	keep := &http.Client{Transport: &http.Transport{}}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	const n = 3000
	for i := range n {
		client := keep
		if i%4 == 0 {
			client = fresh
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
		req.Header.Set("Gauntlet-Phase", "measure")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(200 * time.Microsecond) // a paced load, not back-to-back
	}
	time.Sleep(100 * time.Millisecond)
	ours, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // tcpdump writes what its ring still holds
	_ = dump.Process.Signal(os.Interrupt)
	_ = dump.Wait()
	theirs, frames, err := pairPcap(file, uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	logMu.Lock()
	t.Logf("tcpdump: %d frames; %s", frames, strings.TrimSpace(dumpLog.String()))
	logMu.Unlock()
	t.Logf("capture: %d requests p50 %d ns p99 %d ns; tcpdump: %d requests p50 %d ns p99 %d ns",
		ours.Requests, c.pairer.Latency.Quantile(0.5), c.pairer.Latency.Quantile(0.99),
		theirs.Requests, theirs.Latency.Quantile(0.5), theirs.Latency.Quantile(0.99))
	if ours.Requests != n || theirs.Requests != n || ours.Dropped != 0 {
		t.Fatalf("requests: capture %d (dropped %d), tcpdump %d; want %d each", ours.Requests, ours.Dropped, theirs.Requests, n)
	}
	for _, q := range []float64{0.5, 0.99} {
		a, b := c.pairer.Latency.Quantile(q), theirs.Latency.Quantile(q)
		allowed := max(b/100, UncertaintyMicros*1000)
		if a-b > allowed || b-a > allowed {
			t.Errorf("p%g: capture %d ns, tcpdump %d ns: %d ns apart, want within %d ns (1%% or %d µs)", q*100, a, b, a-b, allowed, UncertaintyMicros)
		}
	}
}

// pairPcap pairs the frames of a nanosecond pcap file (Ethernet framing, as lo's) the way
// the capture pairs its own.
func pairPcap(path string, port uint16) (*Pairer, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var hdr [24]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, 0, fmt.Errorf("pcap header: %w", err)
	}
	if magic := binary.LittleEndian.Uint32(hdr[0:4]); magic != 0xa1b23c4d {
		return nil, 0, fmt.Errorf("pcap magic %#x: want nanosecond stamps in little-endian", magic)
	}
	if link := binary.LittleEndian.Uint32(hdr[20:24]); link != 1 {
		return nil, 0, fmt.Errorf("pcap link type %d: want Ethernet (1)", link)
	}
	p := NewPairer()
	frames := 0
	for {
		var rec [16]byte
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, frames, err
		}
		sec, nsec := binary.LittleEndian.Uint32(rec[0:4]), binary.LittleEndian.Uint32(rec[4:8])
		frame := make([]byte, binary.LittleEndian.Uint32(rec[8:12]))
		if _, err := io.ReadFull(r, frame); err != nil {
			return nil, frames, err
		}
		frames++
		if s, ok := decode(frame, port, int64(sec)*1e9+int64(nsec)); ok {
			p.Add(s)
		}
	}
	p.Finish()
	return p, frames, nil
}
