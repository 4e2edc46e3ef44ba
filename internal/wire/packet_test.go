package wire

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// frame builds a loopback frame between two ports of 127.0.0.1: a zero Ethernet header,
// IPv4 (no options), TCP (no options).
func frame(src, dst uint16, flags byte, payload string, snap int) []byte {
	return frameAt([4]byte{127, 0, 0, 1}, [4]byte{127, 0, 0, 1}, src, dst, flags, payload, snap)
}

// frameAt is frame between two addresses.
func frameAt(srcAddr, dstAddr [4]byte, src, dst uint16, flags byte, payload string, snap int) []byte {
	b := make([]byte, 14+20+20+len(payload))
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+20+len(payload)))
	ip[9] = 6
	copy(ip[12:], srcAddr[:])
	copy(ip[16:], dstAddr[:])
	tcp := ip[20:]
	binary.BigEndian.PutUint16(tcp[0:], src)
	binary.BigEndian.PutUint16(tcp[2:], dst)
	tcp[12] = 5 << 4
	tcp[13] = flags
	copy(tcp[20:], payload)
	if snap > 0 && snap < len(b) {
		b = b[:snap]
	}
	return b
}

func TestDecode(t *testing.T) {
	measured := "GET /ping HTTP/1.1\r\nHost: x\r\nGauntlet-Phase: measure\r\n\r\n"
	warmup := "GET /ping HTTP/1.1\r\nHost: x\r\nGauntlet-Phase: warmup\r\n\r\n"
	client := Conn{Addr: netip.MustParseAddr("127.0.0.1"), Port: 40000}
	server := client // a response's connection is named by its client end
	for _, tc := range []struct {
		name  string
		frame []byte
		ok    bool
		want  Segment
	}{
		{"a measured request", frame(40000, 8080, 0x18, measured, 0), true, Segment{At: 7, Conn: client, ToServer: true, Data: true, Measured: true}},
		{"a warmup request", frame(40000, 8080, 0x18, warmup, 0), true, Segment{At: 7, Conn: client, ToServer: true, Data: true}},
		{"a response, truncated by the snap length, still has data", frame(8080, 40000, 0x18, "HTTP/1.1 200 OK\r\n\r\nok", 60), true, Segment{At: 7, Conn: server, Data: true}},
		{"a response's status is read within the snap length", frame(8080, 40000, 0x18, "HTTP/1.1 200 OK\r\n\r\nok", 66), true, Segment{At: 7, Conn: server, Data: true, Status: 200}},
		{"a 503 response's status is read", frame(8080, 40000, 0x18, "HTTP/1.1 503 Service Unavailable\r\n\r\n", 0), true, Segment{At: 7, Conn: server, Data: true, Status: 503}},
		{"a body segment has no status", frame(8080, 40000, 0x18, "HTTP/1.1 is not how this body starts", 0), true, Segment{At: 7, Conn: server, Data: true}},
		{"a request that looks like a response has no status", frame(40000, 8080, 0x18, "HTTP/1.1 503 x\r\n", 0), true, Segment{At: 7, Conn: client, ToServer: true, Data: true}},
		{"a bare ACK", frame(40000, 8080, 0x10, "", 0), true, Segment{At: 7, Conn: client, ToServer: true}},
		{"a FIN", frame(8080, 40000, 0x11, "", 0), true, Segment{At: 7, Conn: server, Close: true}},
		{"an RST", frame(40000, 8080, 0x04, "", 0), true, Segment{At: 7, Conn: client, ToServer: true, Close: true}},
		{"another port", frame(40000, 9090, 0x18, measured, 0), false, Segment{}},
		// The target listens on 127.0.0.1; the same port on another loopback address is
		// another process's.
		{"the port on another address", frameAt([4]byte{127, 0, 0, 1}, [4]byte{127, 0, 0, 2}, 40000, 8080, 0x18, measured, 0), false, Segment{}},
		{"a response from another address", frameAt([4]byte{127, 0, 0, 2}, [4]byte{127, 0, 0, 1}, 8080, 40000, 0x18, "HTTP/1.1 200 OK\r\n\r\nok", 0), false, Segment{}},
		{"too short", frame(40000, 8080, 0x18, "", 30), false, Segment{}},
	} {
		got, ok := decode(tc.frame, 8080, 7)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	ipv6 := frame(40000, 8080, 0x18, measured, 0)
	binary.BigEndian.PutUint16(ipv6[12:], 0x86dd)
	if _, ok := decode(ipv6, 8080, 0); ok {
		t.Error("a non-IPv4 frame must be refused")
	}
}
