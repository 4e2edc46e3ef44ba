package wire

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"golang.org/x/net/bpf"
)

// ipv4TCP builds an IPv4/TCP packet (no options) with payload bytes of data.
func ipv4TCP(src, dst string, sport, dport uint16, flags byte, payload int) []byte {
	p := make([]byte, 40+payload)
	p[0], p[9] = 0x45, 6
	binary.BigEndian.PutUint16(p[2:], uint16(len(p)))
	copy(p[12:16], netip.MustParseAddr(src).AsSlice())
	copy(p[16:20], netip.MustParseAddr(dst).AsSlice())
	binary.BigEndian.PutUint16(p[20:], sport)
	binary.BigEndian.PutUint16(p[22:], dport)
	p[32], p[33] = 5<<4, flags
	return p
}

// The kernel filter of an endpoint capture, run in x/net/bpf's VM (which has no
// protocol extension: the program is run from its third instruction, after the IPv4
// check; jumps are relative, so the rest is the same program).
func TestEndpointFilter(t *testing.T) {
	ep := Endpoint{Addr: netip.MustParseAddr("10.1.2.3"), Port: 8080}
	vm, err := bpf.NewVM(endpointFilter(ep)[2:])
	if err != nil {
		t.Fatal(err)
	}
	const ack, psh, fin, rst, syn = 0x10, 0x08, 0x01, 0x04, 0x02
	for _, c := range []struct {
		name string
		pkt  []byte
		pass bool
	}{
		{"request to the pod", ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 8080, psh|ack, 100), true},
		{"response from the pod", ipv4TCP("10.1.2.3", "10.9.9.9", 8080, 40000, psh|ack, 2), true},
		{"bare ACK to the pod", ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 8080, ack, 0), false},
		{"bare ACK from the pod", ipv4TCP("10.1.2.3", "10.9.9.9", 8080, 40000, ack, 0), false},
		{"SYN", ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 8080, syn, 0), false},
		{"FIN from the client", ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 8080, fin|ack, 0), true},
		{"RST from the pod", ipv4TCP("10.1.2.3", "10.9.9.9", 8080, 40000, rst, 0), true},
		{"another pod, same port", ipv4TCP("10.9.9.9", "10.1.2.4", 40000, 8080, psh|ack, 100), false},
		{"the pod, another port", ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 9090, psh|ack, 100), false},
		{"the pod as a client", ipv4TCP("10.1.2.3", "10.9.9.9", 40000, 5432, psh|ack, 100), false},
		{"UDP", func() []byte { p := ipv4TCP("10.9.9.9", "10.1.2.3", 40000, 8080, 0, 100); p[9] = 17; return p }(), false},
	} {
		n, err := vm.Run(c.pkt)
		if err != nil {
			t.Fatal(err)
		}
		if (n > 0) != c.pass || (c.pass && n != snapLen) {
			t.Errorf("%s: filter returned %d, want pass %v", c.name, n, c.pass)
		}
	}
}
