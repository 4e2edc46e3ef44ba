package wire

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

// Endpoint is the server end of the captured connections: one IPv4 address and TCP port
// (a target pod's). The zero Addr matches any address (the loopback capture, which
// filters on the port alone).
type Endpoint struct {
	Addr netip.Addr
	Port uint16
}

// decodeIPv4 reads an IPv4/TCP packet from its IP header on: a segment to or from ep,
// which way it went, and whether it opens a measured request. ok is false for anything
// else. Payloads past the snap length are never read, and none is kept.
func decodeIPv4(ip []byte, ep Endpoint, at int64) (Segment, bool) {
	if len(ip) < 20 {
		return Segment{}, false
	}
	ihl := int(ip[0]&0x0f) * 4
	if ip[0]>>4 != 4 || ihl < 20 || ip[9] != 6 || len(ip) < ihl+20 {
		return Segment{}, false
	}
	total := int(binary.BigEndian.Uint16(ip[2:4]))
	tcp := ip[ihl:]
	doff := int(tcp[12]>>4) * 4
	if doff < 20 {
		return Segment{}, false
	}
	srcIP, dstIP := netip.AddrFrom4([4]byte(ip[12:16])), netip.AddrFrom4([4]byte(ip[16:20]))
	src, dst := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
	anyAddr := !ep.Addr.IsValid()
	s := Segment{At: at}
	switch {
	case dst == ep.Port && (anyAddr || dstIP == ep.Addr):
		s.ToServer = true
		s.Conn = Conn{Addr: srcIP, Port: src}
	case src == ep.Port && (anyAddr || srcIP == ep.Addr):
		s.Conn = Conn{Addr: dstIP, Port: dst}
	default:
		return Segment{}, false
	}
	flags := tcp[13]
	s.Close = flags&0x01 != 0 || flags&0x04 != 0 // FIN, RST
	payload := total - ihl - doff                // from the IP header: the packet may be truncated
	s.Data = payload > 0
	if s.Data && len(tcp) > doff {
		if s.ToServer {
			s.Measured = bytes.Contains(tcp[doff:], []byte(MeasuredMarker))
		} else {
			s.Status = statusOf(tcp[doff:])
		}
	}
	return s, true
}

// statusOf reads the status code of an HTTP/1.x status line ("HTTP/1.1 503 ..."), 0 when
// the payload does not start with one (a body, or a line split across segments).
func statusOf(b []byte) int {
	const prefix = "HTTP/1."
	if len(b) < len(prefix)+5 || !bytes.HasPrefix(b, []byte(prefix)) || b[8] != ' ' {
		return 0
	}
	code := 0
	for _, d := range b[9:12] {
		if d < '0' || d > '9' {
			return 0
		}
		code = 10*code + int(d-'0')
	}
	if code < 100 || code > 599 {
		return 0
	}
	return code
}
