package wire

import (
	"encoding/binary"
	"net/netip"
)

// UncertaintyMicros is how far a wire percentile may sit from the target's own time: a
// response is stamped where the loopback device receives it, about 1 µs after its transmit
// copy at the median and up to 5.5 µs at p99 (TestLoopbackHandOff), and tcpdump's capture of
// the same packets differed from this one by 0.3-0.9 µs at p50 and 0-3.6 µs at p99
// (TestCaptureAgreesWithTcpdump).
const UncertaintyMicros = 6

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
	// The target listens on 127.0.0.1 (HOST): its address as well as its port, as in filter.
	return decodeIPv4(frame[eth:], Endpoint{Addr: netip.AddrFrom4([4]byte{127, 0, 0, 1}), Port: port}, at)
}
