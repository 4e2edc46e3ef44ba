package wireagent

import (
	"bufio"
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// flood crafts a hostile client's TCP segments to a test pod's port and writes them onto
// the pod's veth pair with packet sockets: requests from the host side, responses from
// the pod's side, so the agent sees each where it would see a real one (leaving on, or
// arriving at, the pod's host-side veth) and the kernel stamps each when it is written.
// Each connection is its own client address and port, so a million of them cost a
// million writes, not a million handshakes. The frames are addressed to no one's MAC: the
// receiving end drops them before its TCP, which never answers with a reset that would
// close (and so free) the connection.
type flood struct {
	pod     testPod
	port    uint16
	toPod   int // packet socket on the host side
	fromPod int // packet socket on the pod's side, opened in its namespace
	hostIdx int
	peerIdx int
	frame   []byte
	sent    int   // segments written
	unread  int64 // the most bytes the agent's sockets held unread, at a settle
}

// A flood's requests carry the measured marker, so every one the capture follows counts.
var (
	floodRequest  = []byte("GET / HTTP/1.1\r\nHost: target" + wire.MeasuredMarker + "\r\n")
	floodResponse = []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
)

func newFlood(t *testing.T, pod testPod, port uint16) *flood {
	t.Helper()
	f := &flood{pod: pod, port: port, frame: make([]byte, 14+40+max(len(floodRequest), len(floodResponse)))}
	host, err := net.InterfaceByName(pod.host)
	if err != nil {
		t.Fatal(err)
	}
	f.hostIdx = host.Index
	// Protocol 0: the sockets only send, and queue nothing they would never read.
	if f.toPod, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(f.toPod) })
	pod.inNetns(t, func() error {
		peer, err := net.InterfaceByName(pod.peer)
		if err != nil {
			return err
		}
		f.peerIdx = peer.Index
		f.fromPod, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		return err
	})
	t.Cleanup(func() { unix.Close(f.fromPod) })
	return f
}

// floodClient is the i-th connection's client end: 20 addresses of 50,000 ports each per
// million connections.
func floodClient(i int) (netip.Addr, uint16) {
	return netip.AddrFrom4([4]byte{172, 20, byte(i / 50_000 >> 8), byte(i / 50_000)}), uint16(10_000 + i%50_000)
}

// open sends connection i's SYN and its request (the capture's kernel filter passes
// only the request).
func (f *flood) open(t *testing.T, i int) {
	addr, port := floodClient(i)
	f.send(t, f.toPod, f.hostIdx, addr, port, f.pod.addr, f.port, 0x02, nil)          // SYN
	f.send(t, f.toPod, f.hostIdx, addr, port, f.pod.addr, f.port, 0x18, floodRequest) // PSH|ACK
}

// answer sends the pod's response on connection i.
func (f *flood) answer(t *testing.T, i int) {
	addr, port := floodClient(i)
	f.send(t, f.fromPod, f.peerIdx, f.pod.addr, f.port, addr, port, 0x18, floodResponse)
}

// settle waits until the process's packet sockets (the agent's captures) hold at most
// limit bytes of unread packets: the flood goes as fast as the agent reads, so that its
// figures are exact rather than cut by drops on a busy machine (drops are counted, and a
// capture with drops is not used, but the test is about the budget).
func (f *flood) settle(t *testing.T, limit int64) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n, err := unreadPackets()
		if err != nil {
			t.Fatal(err)
		}
		f.unread = max(f.unread, n)
		if n <= limit {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent has not read %d bytes of packets in 10 s", n)
		}
	}
}

// unreadPackets is the bytes queued on this process's packet sockets of the host's
// namespace (/proc/net/packet's Rmem, for the sockets among our descriptors).
func unreadPackets() (int64, error) {
	ours := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil {
			if inode, ok := strings.CutPrefix(l, "socket:["); ok {
				ours[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	// This thread's namespace: threads moved into a pod's are never given back.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	table, err := os.Open("/proc/thread-self/net/packet")
	if err != nil {
		return 0, err
	}
	defer table.Close()
	var total int64
	sc := bufio.NewScanner(table)
	sc.Scan() // the header: sk RefCnt Type Proto Iface R Rmem User Inode
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || !ours[f[8]] {
			continue
		}
		n, err := strconv.ParseInt(f[6], 10, 64)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, sc.Err()
}

func (f *flood) send(t *testing.T, fd, ifindex int, src netip.Addr, sport uint16, dst netip.Addr, dport uint16, flags byte, payload []byte) {
	b := f.frame[:14+40+len(payload)]
	copy(b[0:6], []byte{0x02, 0, 0, 0, 0, 0x01}) // a MAC no interface has: dropped on arrival
	copy(b[6:12], []byte{0x02, 0, 0, 0, 0, 0x02})
	binary.BigEndian.PutUint16(b[12:14], unix.ETH_P_IP)
	ip, tcp := b[14:34], b[34:]
	clear(ip)
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(ip[2:4], uint16(20+20+len(payload)))
	copy(ip[12:16], src.AsSlice())
	copy(ip[16:20], dst.AsSlice())
	binary.BigEndian.PutUint16(ip[10:12], checksum(0, ip))
	clear(tcp[:20])
	binary.BigEndian.PutUint16(tcp[0:2], sport)
	binary.BigEndian.PutUint16(tcp[2:4], dport)
	binary.BigEndian.PutUint32(tcp[4:8], 1)
	tcp[12], tcp[13] = 5<<4, flags
	binary.BigEndian.PutUint16(tcp[14:16], 65535)
	copy(tcp[20:], payload)
	var pseudo [12]byte
	copy(pseudo[0:4], ip[12:16])
	copy(pseudo[4:8], ip[16:20])
	pseudo[9] = 6
	binary.BigEndian.PutUint16(pseudo[10:12], uint16(len(tcp)))
	binary.BigEndian.PutUint16(tcp[16:18], checksum(sum(0, pseudo[:]), tcp))
	to := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: ifindex}
	for {
		err := unix.Sendto(fd, b, 0, to)
		if err == unix.ENOBUFS || err == unix.EAGAIN { // the queue is full: wait for it
			continue
		}
		if err != nil {
			t.Fatalf("writing a crafted segment: %v", err)
		}
		f.sent++
		return
	}
}

func sum(s uint32, b []byte) uint32 {
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	return s
}

// checksum is the Internet checksum of b, starting from the partial sum s.
func checksum(s uint32, b []byte) uint16 {
	s = sum(s, b)
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }
