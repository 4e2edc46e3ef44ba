// Package wiretest runs tcpdump beside a capture under test: an independent capture of the
// same packets (libpcap's ring, nanosecond stamps), paired by wire.PairPcap, so that a test
// compares only where and how each packet was stamped.
package wiretest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// Tcpdump is a running tcpdump writing a pcap file.
type Tcpdump struct {
	cmd  *exec.Cmd
	file string
	mu   sync.Mutex
	log  strings.Builder
}

// StartTcpdump captures iface's packets matching filter (a pcap filter expression) until
// Stop, and returns once tcpdump listens. It fails the test when tcpdump is missing (make
// deps installs it) or does not start.
func StartTcpdump(t *testing.T, iface, filter string) *Tcpdump {
	t.Helper()
	bin, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Fatal("this test needs tcpdump: hack/apt.sh tcpdump (make deps installs it)")
	}
	d := &Tcpdump{file: filepath.Join(t.TempDir(), iface+".pcap")}
	d.cmd = exec.Command(bin, "-i", iface, "-n", "-U", "--immediate-mode", "-s", strconv.Itoa(wire.SnapLen), "-B", "32768",
		"--time-stamp-precision=nano", "-w", d.file, filter)
	stderr, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.cmd.Process.Kill(); _ = d.cmd.Wait() })
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			d.mu.Lock()
			d.log.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			if strings.Contains(sc.Text(), "listening on") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatalf("tcpdump did not start listening on %s: %s", iface, d.Log())
	}
	return d
}

// Stop lets tcpdump write what its ring still holds, stops it, and pairs its file for the
// server at ep.
func (d *Tcpdump) Stop(t *testing.T, ep wire.Endpoint) *wire.Pairer {
	t.Helper()
	time.Sleep(500 * time.Millisecond)
	_ = d.cmd.Process.Signal(os.Interrupt)
	_ = d.cmd.Wait()
	p, frames, err := wire.PairPcap(d.file, ep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tcpdump: %d frames; %s", frames, strings.TrimSpace(d.Log()))
	return p
}

// Log is what tcpdump printed on stderr so far.
func (d *Tcpdump) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}
