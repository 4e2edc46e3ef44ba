package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// snapLen is how much of each frame is copied to us: the headers and the start of a
// request, where the phase header is. Responses and bodies are never read past it.
const snapLen = SnapLen

// ErrNoPrivilege is returned when the packet socket is refused: capturing needs root or
// CAP_NET_RAW.
var ErrNoPrivilege = errors.New("capturing packets needs root or CAP_NET_RAW")

// Capture records the wire latency of one TCP port on the loopback device, from Start to
// Stop, on a packet socket (AF_PACKET) with a kernel filter that passes only that port's
// IPv4 TCP segments, once each (the loopback device shows every frame twice: sent and
// received).
type Capture struct {
	fd      int
	port    uint16
	pairer  *Pairer
	stopAt  atomic.Int64 // ns; 0 while running
	done    chan struct{}
	readErr error
	mu      sync.Mutex
}

// Start opens the packet socket and starts pairing in the background. The reader runs on
// cpus when given (the target's, as tcpdump pinned beside the target in the reference
// measurement): a reader free to wake on the load generator's CPU for every packet would
// slow the generator it is measuring.
func Start(port int, cpus []int) (*Capture, error) {
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("wire capture: port %d out of range", port)
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return nil, fmt.Errorf("wire capture: loopback device: %w", err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("wire capture: %w (%v)", ErrNoPrivilege, err)
		}
		return nil, fmt.Errorf("wire capture: packet socket: %w", err)
	}
	c := &Capture{fd: fd, port: uint16(port), pairer: NewPairer(), done: make(chan struct{})}
	if err := c.setup(lo.Index); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("wire capture: %w", err)
	}
	go c.loop(cpus)
	return c, nil
}

func (c *Capture) setup(ifindex int) error { return setupSocket(c.fd, filter(c.port), ifindex) }

// filter passes IPv4 TCP segments to or from 127.0.0.1:port (the target's address: the
// local mode binds targets there) that the loopback device received (not the
// PACKET_OUTGOING copy), truncated to snapLen. The address matters as much as the port:
// another process may use the same port on another loopback address (127.0.0.2).
func filter(port uint16) []bpf.Instruction {
	const drop, accept = 0, snapLen
	const loopback = 0x7f000001 // 127.0.0.1
	return []bpf.Instruction{
		/* 0 */ bpf.LoadExtension{Num: bpf.ExtType},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.PACKET_OUTGOING, SkipTrue: 14},
		/* 2 */ bpf.LoadAbsolute{Off: 12, Size: 2},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 0x0800, SkipTrue: 12},
		/* 4 */ bpf.LoadAbsolute{Off: 23, Size: 1},
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 6, SkipTrue: 10},
		/* 6 */ bpf.LoadMemShift{Off: 14},
		// From the server: source 127.0.0.1:port.
		/* 7 */ bpf.LoadIndirect{Off: 14, Size: 2},
		/* 8 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(port), SkipTrue: 2},
		/* 9 */ bpf.LoadAbsolute{Off: 26, Size: 4},
		/* 10 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: loopback, SkipTrue: 4},
		// To the server: destination 127.0.0.1:port.
		/* 11 */ bpf.LoadIndirect{Off: 16, Size: 2},
		/* 12 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(port), SkipTrue: 3},
		/* 13 */ bpf.LoadAbsolute{Off: 30, Size: 4},
		/* 14 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: loopback, SkipTrue: 1},
		/* 15 */ bpf.RetConstant{Val: accept},
		/* 16 */ bpf.RetConstant{Val: drop},
	}
}

func (c *Capture) loop(cpus []int) {
	defer close(c.done)
	if len(cpus) > 0 {
		// This thread is pinned while the capture runs and given back as it was after. It
		// must not end with the goroutine (what a locked goroutine's exit does): a child
		// forked earlier from this thread has Pdeathsig set and would be killed with it.
		runtime.LockOSThread()
		var old, set unix.CPUSet
		for _, cpu := range cpus {
			set.Set(cpu)
		}
		if unix.SchedGetaffinity(0, &old) == nil && unix.SchedSetaffinity(0, &set) == nil {
			defer func() {
				if unix.SchedSetaffinity(0, &old) == nil {
					runtime.UnlockOSThread()
				}
			}()
		} else {
			runtime.UnlockOSThread() // unpinned: the capture still works
		}
	}
	buf := make([]byte, snapLen)
	oob := make([]byte, unix.CmsgSpace(16))
	for {
		n, oobn, _, _, err := unix.Recvmsg(c.fd, buf, oob, 0)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				if c.stopAt.Load() != 0 {
					return // stopped and drained
				}
				continue
			}
			c.readErr = err
			return
		}
		at, ok := timestamp(oob[:oobn])
		if !ok {
			at = time.Now().UnixNano()
		}
		if stop := c.stopAt.Load(); stop != 0 && at > stop {
			return
		}
		if s, ok := decode(buf[:n], c.port, at); ok {
			c.mu.Lock()
			c.pairer.Add(s)
			c.mu.Unlock()
		}
	}
}

// timestamp reads SCM_TIMESTAMPNS: when the kernel received the frame.
func timestamp(oob []byte) (int64, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			// struct timespec: two 64-bit fields (amd64, arm64) in the machine's byte order.
			sec, nsec := int64(binary.NativeEndian.Uint64(m.Data[0:8])), int64(binary.NativeEndian.Uint64(m.Data[8:16]))
			return sec*1e9 + nsec, true
		}
	}
	return 0, false
}

// Stop ends the capture at now: segments received until then are paired, then requests
// still unanswered are counted so. Packets the kernel dropped are reported in Dropped.
func (c *Capture) Stop() (Result, error) {
	c.stopAt.Store(time.Now().UnixNano())
	<-c.done
	stats, statErr := unix.GetsockoptTpacketStats(c.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
	unix.Close(c.fd)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pairer.Finish()
	r := c.pairer.Result()
	if statErr == nil {
		r.Dropped = int64(stats.Drops)
	}
	if c.readErr != nil {
		return r, fmt.Errorf("wire capture: reading packets: %w", c.readErr)
	}
	return r, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }
