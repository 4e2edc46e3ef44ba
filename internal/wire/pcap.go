package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// SnapLen is how much of each frame the capture reads (snapLen); an independent capture
// of the same packets reads as much.
const SnapLen = 1024

// PairPcap pairs the frames of a nanosecond pcap file (Ethernet framing, as lo's and a
// veth's) the way the capture pairs its own: the checks against an independent capture
// (tcpdump, through wiretest) read its file with it, so what differs is only where and how
// each packet was stamped. ep is the server's address and port; frames is how many frames
// the file held.
func PairPcap(path string, ep Endpoint) (*Pairer, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var hdr [24]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, 0, fmt.Errorf("pcap header: %w", err)
	}
	if magic := binary.LittleEndian.Uint32(hdr[0:4]); magic != 0xa1b23c4d {
		return nil, 0, fmt.Errorf("pcap magic %#x: want nanosecond stamps in little-endian", magic)
	}
	if link := binary.LittleEndian.Uint32(hdr[20:24]); link != 1 {
		return nil, 0, fmt.Errorf("pcap link type %d: want Ethernet (1)", link)
	}
	p := NewPairer()
	frames := 0
	for {
		var rec [16]byte
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, frames, err
		}
		sec, nsec := binary.LittleEndian.Uint32(rec[0:4]), binary.LittleEndian.Uint32(rec[4:8])
		frame := make([]byte, binary.LittleEndian.Uint32(rec[8:12]))
		if _, err := io.ReadFull(r, frame); err != nil {
			return nil, frames, err
		}
		frames++
		if len(frame) < 14+20 || binary.BigEndian.Uint16(frame[12:14]) != 0x0800 {
			continue // not IPv4 over Ethernet
		}
		if s, ok := decodeIPv4(frame[14:], ep, int64(sec)*1e9+int64(nsec)); ok {
			p.Add(s)
		}
	}
	p.Finish()
	return p, frames, nil
}
