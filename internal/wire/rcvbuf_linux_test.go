package wire

import (
	"net/netip"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// A capture's socket buffer as the kernel grants it (SO_RCVBUFFORCE succeeds here, as root:
// the most any node's net.core.rmem_max could allow): the node agent runs up to 16 captures
// (wireagent.MaxRunning) in a 128 MiB memory limit (the chart's), and their buffers
// together must stay within a quarter of it, beside a heap of up to about 60 MiB. The
// kernel reports twice what was asked, the bookkeeping it charges too.
func TestCaptureBufferFitsTheAgentsMemory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs CAP_NET_RAW and CAP_NET_ADMIN (root) for a packet socket of the forced size")
	}
	c, err := StartEndpoint(Endpoint{Addr: netip.MustParseAddr("127.0.0.9"), Port: 9}, "lo")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = c.Stop() }()
	got, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		t.Fatal(err)
	}
	const agentLimit, captures = 128 << 20, 16
	if all := captures * got; all > agentLimit/4 {
		t.Errorf("each capture's socket may hold %d bytes: %d captures hold %d MiB, over a quarter of the agent's %d MiB",
			got, captures, all>>20, agentLimit>>20)
	}
	if got < 1<<20 {
		t.Errorf("each capture's socket may hold %d bytes: too little for a burst at 5,000 requests/s", got)
	}
}
