package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// EndpointCapture records the wire latency of one IPv4 address and TCP port (a pod's) on a
// node, on every interface at once (or one named interface): a packet socket in cooked mode
// (SOCK_DGRAM, so Ethernet, tunnel and L3 devices all read from the IP header on) whose
// kernel filter passes only segments to or from that address and port.
//
// One segment crosses several interfaces on its way (a pod's veth, a bridge, the node's
// uplink), each stamped at a different point. Each interface pairs on its own, and Stop
// keeps the one next to the target: the interface where the endpoint's own packets first
// arrived from it (the host side of the pod's veth, whatever the CNI names it), unless
// another interface saw more answered requests (a CNI that hands packets to the pod
// without passing its host-side veth, where only that veth's responses show).
type EndpointCapture struct {
	fd      int
	ep      Endpoint
	stopAt  atomic.Int64 // ns; 0 while running
	done    chan struct{}
	readErr error

	mu     sync.Mutex
	budget *connBudget // shared by the interfaces' pairers: one connection seen on three counts three
	ifaces map[int]*Pairer
	home   int // ifindex where the endpoint's packets first arrived; 0 until then
}

// pollInterval is how long the reader lets packets gather once the socket's queue is
// drained: one wake per interval instead of one per packet (at 1,000 requests/s, 2 ms cost
// the agent twice the CPU of 10 ms; hack/wire-agent-cpu.sh). The queue must hold an
// interval's packets: 10 ms at 5,000 requests/s is about 100 packets of at most snapLen
// bytes each, well inside the socket buffer (net.core.rmem_max); an overflow is counted
// in Dropped, and a capture with drops is not used.
const pollInterval = 10 * time.Millisecond

// StartEndpoint starts capturing ep (an IPv4 address and a port) on iface, or on every
// interface when iface is empty.
func StartEndpoint(ep Endpoint, iface string) (*EndpointCapture, error) {
	if !ep.Addr.Is4() || ep.Port == 0 {
		return nil, fmt.Errorf("wire capture: endpoint %v:%d: want an IPv4 address and a port above 0", ep.Addr, ep.Port)
	}
	if err := ensureStamps(); err != nil {
		return nil, fmt.Errorf("wire capture: %w", err)
	}
	ifindex := 0
	if iface != "" {
		dev, err := net.InterfaceByName(iface)
		if err != nil {
			return nil, fmt.Errorf("wire capture: interface %q: %w", iface, err)
		}
		ifindex = dev.Index
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL))) // ALL: outgoing packets reach only ETH_P_ALL taps
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("wire capture: %w (%v)", ErrNoPrivilege, err)
		}
		return nil, fmt.Errorf("wire capture: packet socket: %w", err)
	}
	c := &EndpointCapture{fd: fd, ep: ep, done: make(chan struct{}), ifaces: map[int]*Pairer{},
		budget: &connBudget{max: DefaultMaxConns}}
	if err := c.setup(ifindex); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("wire capture: %w", err)
	}
	go c.loop()
	return c, nil
}

func (c *EndpointCapture) setup(ifindex int) error {
	return setupSocket(c.fd, endpointFilter(c.ep), ifindex)
}

// endpointFilter passes IPv4 TCP segments from ep's address and port or to them that carry
// data or close the connection, truncated to snapLen. Bare ACKs and handshakes, half of a
// keep-alive exchange's packets, change nothing in pairing and never leave the kernel. A
// cooked socket's filter reads from the IP header on (offset 0).
func endpointFilter(ep Endpoint) []bpf.Instruction {
	const drop, accept = 0, snapLen
	addr := binary.BigEndian.Uint32(ep.Addr.AsSlice())
	port := uint32(ep.Port)
	return []bpf.Instruction{
		/* 0 */ bpf.LoadExtension{Num: bpf.ExtProto},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.ETH_P_IP, SkipTrue: 21},
		/* 2 */ bpf.LoadAbsolute{Off: 9, Size: 1},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 6, SkipTrue: 19},
		/* 4 */ bpf.LoadMemShift{Off: 0}, // X: the IP header's length
		/* 5 */ bpf.LoadAbsolute{Off: 12, Size: 4}, // source address
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: addr, SkipTrue: 2},
		/* 7 */ bpf.LoadIndirect{Off: 0, Size: 2}, // source port
		/* 8 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: port, SkipTrue: 4},
		/* 9 */ bpf.LoadAbsolute{Off: 16, Size: 4}, // destination address
		/* 10 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: addr, SkipTrue: 12},
		/* 11 */ bpf.LoadIndirect{Off: 2, Size: 2}, // destination port
		/* 12 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: port, SkipTrue: 10},
		/* 13 */ bpf.LoadIndirect{Off: 13, Size: 1}, // TCP flags
		/* 14 */ bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x05, SkipTrue: 7}, // FIN or RST
		/* 15 */ bpf.LoadIndirect{Off: 12, Size: 1}, // data offset, in its top 4 bits
		/* 16 */ bpf.ALUOpConstant{Op: bpf.ALUOpShiftRight, Val: 2},
		/* 17 */ bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x3c}, // TCP header length
		/* 18 */ bpf.ALUOpX{Op: bpf.ALUOpAdd}, // + IP header length
		/* 19 */ bpf.TAX{}, // X: both headers
		/* 20 */ bpf.LoadAbsolute{Off: 2, Size: 2}, // IP total length
		/* 21 */ bpf.JumpIfX{Cond: bpf.JumpGreaterThan, SkipFalse: 1}, // payload > 0
		/* 22 */ bpf.RetConstant{Val: accept},
		/* 23 */ bpf.RetConstant{Val: drop},
	}
}

func (c *EndpointCapture) loop() {
	defer close(c.done)
	buf := make([]byte, snapLen)
	oob := make([]byte, unix.CmsgSpace(16))
	flags := 0 // 0: wait for a packet (up to SO_RCVTIMEO); MSG_DONTWAIT: drain the queue
	for {
		n, oobn, _, from, err := unix.Recvmsg(c.fd, buf, oob, flags)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				if c.stopAt.Load() != 0 {
					return // stopped and drained
				}
				if flags == unix.MSG_DONTWAIT {
					// Drained: let packets gather a little rather than wake for each one.
					// The kernel stamped each as it passed the interface, so reading it
					// later changes no figure. An idle capture waits in the kernel.
					time.Sleep(pollInterval)
					flags = 0
				}
				continue
			}
			c.readErr = err
			return
		}
		flags = unix.MSG_DONTWAIT
		at, ok := timestamp(oob[:oobn])
		if !ok {
			at = time.Now().UnixNano()
		}
		if stop := c.stopAt.Load(); stop != 0 && at > stop {
			return
		}
		ll, _ := from.(*unix.SockaddrLinklayer)
		s, ok := decodeIPv4(buf[:n], c.ep, at)
		if !ok || ll == nil {
			continue
		}
		c.mu.Lock()
		p := c.ifaces[ll.Ifindex]
		if p == nil {
			p = newPairer(c.budget)
			c.ifaces[ll.Ifindex] = p
		}
		if c.home == 0 && !s.ToServer && ll.Pkttype != unix.PACKET_OUTGOING {
			c.home = ll.Ifindex
		}
		p.Add(s)
		c.mu.Unlock()
	}
}

// Stop ends the capture at now and returns the chosen interface's figures.
func (c *EndpointCapture) Stop() (EndpointResult, error) {
	c.stopAt.Store(time.Now().UnixNano())
	<-c.done
	stats, statErr := unix.GetsockoptTpacketStats(c.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
	unix.Close(c.fd)
	c.mu.Lock()
	defer c.mu.Unlock()
	best := c.home
	for idx, p := range c.ifaces {
		p.Finish()
		if b := c.ifaces[best]; b == nil || p.Latency.Count() > b.Latency.Count() {
			best = idx
		}
	}
	var out EndpointResult
	if p := c.ifaces[best]; p != nil {
		out = EndpointResult{Result: p.Result(), Other: p.Other,
			Buckets: CapBuckets(p.Latency.Buckets(), MaxBuckets), MaxNanos: p.Latency.Max()}
		if dev, err := net.InterfaceByIndex(best); err == nil {
			out.Interface = dev.Name
		}
	}
	if statErr == nil {
		out.Dropped = int64(stats.Drops)
	}
	if c.readErr != nil {
		return out, fmt.Errorf("wire capture: reading packets: %w", c.readErr)
	}
	return out, nil
}
