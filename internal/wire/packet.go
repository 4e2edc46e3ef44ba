package wire

import "encoding/binary"

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
	return decodeIPv4(frame[eth:], Endpoint{Port: port}, at)
}
