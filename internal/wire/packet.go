package wire

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

// MeasuredMarker is the header loadgen/bench.js sends with every request of the measured
// window: the capture counts exactly the requests k6 counts, whatever the clocks say.
const MeasuredMarker = "\r\nGauntlet-Phase: measure\r\n"

// decode reads an Ethernet-framed IPv4/TCP frame (the loopback device's framing) to or from
// port. ok is false for anything else. snap-truncated payloads are fine: only the first
// bytes are searched for the marker.
func decode(frame []byte, port uint16, at int64) (Segment, bool) {
	const eth = 14
	if len(frame) < eth+20 || binary.BigEndian.Uint16(frame[12:14]) != 0x0800 {
		return Segment{}, false
	}
	ip := frame[eth:]
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
	src, dst := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
	s := Segment{At: at}
	server := netip.AddrFrom4([4]byte{127, 0, 0, 1}) // the target's address, as in filter
	switch {
	case port == dst && netip.AddrFrom4([4]byte(ip[16:20])) == server:
		s.ToServer = true
		s.Conn = Conn{Addr: netip.AddrFrom4([4]byte(ip[12:16])), Port: src}
	case port == src && netip.AddrFrom4([4]byte(ip[12:16])) == server:
		s.Conn = Conn{Addr: netip.AddrFrom4([4]byte(ip[16:20])), Port: dst}
	default:
		return Segment{}, false
	}
	flags := tcp[13]
	s.Close = flags&0x01 != 0 || flags&0x04 != 0 // FIN, RST
	payload := total - ihl - doff                // from the IP header: the frame may be truncated
	s.Data = payload > 0
	if s.Data && s.ToServer && len(tcp) > doff {
		s.Measured = bytes.Contains(tcp[doff:], []byte(MeasuredMarker))
	}
	return s, true
}
