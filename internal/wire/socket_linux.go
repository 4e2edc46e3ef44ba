//go:build linux

package wire

import (
	"fmt"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// setupSocket readies a packet socket for either capture: the kernel filter, a large receive
// buffer, kernel timestamps, a read timeout (so Stop is noticed), and the interface (0: all).
func setupSocket(fd int, filter []bpf.Instruction, ifindex int) error {
	prog, err := bpf.Assemble(filter)
	if err != nil {
		return err
	}
	raw := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		raw[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER,
		&unix.SockFprog{Len: uint16(len(raw)), Filter: &raw[0]}); err != nil {
		return fmt.Errorf("attach filter: %w", err)
	}
	// A buffer for bursts (the reader runs beside a busy load generator), sized so that the
	// agent's captures together fit its memory (ReceiveBuffer). FORCE needs CAP_NET_ADMIN
	// (the node agent does not hold it); without it the plain size, capped by
	// net.core.rmem_max, stands. Drops are counted and make a capture incomplete.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, ReceiveBuffer) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, ReceiveBuffer)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fmt.Errorf("kernel timestamps: %w", err)
	}
	tv := unix.NsecToTimeval(int64(50 * time.Millisecond))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifindex})
}
