package loopback

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// testPorts keeps development runs inside the loopback range reserved for this work.
var testPorts = PortRange{Lo: 18000, Hi: 18999}

func TestFreePort(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 20; i++ {
		p, err := FreePort(testPorts)
		if err != nil {
			t.Fatal(err)
		}
		if p < testPorts.Lo || p > testPorts.Hi || seen[p] {
			t.Fatalf("port %d out of range or handed out twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d was not free: %v", p, err)
		}
		l.Close()
	}
	if p, err := FreePort(PortRange{}); err != nil || p == 0 {
		t.Fatalf("kernel port: %d, %v", p, err)
	}
	// A range whose only port is taken has nothing to give.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	if _, err := FreePort(PortRange{Lo: taken, Hi: taken}); err == nil || !strings.Contains(err.Error(), "no free loopback port") {
		t.Fatalf("err = %v", err)
	}
}
