//go:build !linux

package wire

import (
	"errors"
	"fmt"
)

// ErrNoPrivilege is returned when the packet socket is refused (Linux only).
var ErrNoPrivilege = errors.New("capturing packets needs root or CAP_NET_RAW")

// errNoPacketSocket: the capture reads an AF_PACKET socket, which only Linux has.
var errNoPacketSocket = errors.New("wire capture needs Linux (AF_PACKET)")

// Capture is a loopback capture; off Linux none can start.
type Capture struct{}

// Start refuses: there is no packet socket off Linux.
func Start(port int, cpus []int) (*Capture, error) {
	return nil, fmt.Errorf("wire capture of port %d: %w", port, errNoPacketSocket)
}

// Stop has nothing to stop.
func (c *Capture) Stop() (Result, error) { return Result{}, errNoPacketSocket }
