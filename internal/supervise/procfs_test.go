package supervise

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Listeners finds this process's own sockets with their addresses, IPv4 and IPv6.
func TestListeners(t *testing.T) {
	testenv.Long(t)
	want := map[string]bool{}
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0", "[::1]:0", "[::]:0"} {
		network := "tcp4"
		if strings.HasPrefix(addr, "[") {
			network = "tcp6"
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatalf("listen %s: %v", addr, err)
		}
		defer l.Close()
		want[l.Addr().String()] = true
	}
	ls, err := Listeners([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range ls {
		if l.PID != os.Getpid() {
			t.Errorf("listener %v of another pid", l)
		}
		got[l.Addr.String()] = true
	}
	for a := range want {
		if !got[a] {
			t.Errorf("listener %s not found among %v", a, ls)
		}
	}
}
