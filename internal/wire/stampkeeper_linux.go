package wire

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The kernel stamps received packets only while some socket asks for timestamps, and it
// turns stamping on from a work queue, some time after the first such socket appears (on
// a busy machine, after packets have already passed). A packet that passed unstamped is
// stamped when it is read instead, with no sign of it: a request and its response read
// together then look a microsecond apart. So before the first capture a socket asks for
// timestamps and the stamping is seen on, and that socket stays open for the process's
// life, keeping it on for every later capture.
var (
	stampOnce sync.Once
	stampErr  error
)

// stampsOnTimeout bounds the wait for the kernel to turn stamping on.
const stampsOnTimeout = 10 * time.Second

// ensureStamps returns once the kernel stamps packets as they arrive.
func ensureStamps() error {
	stampOnce.Do(func() { stampErr = keepStamps(stampsOnTimeout) })
	return stampErr
}

// keepStamps opens a UDP socket on loopback with SO_TIMESTAMPNS, never closed, and sends
// itself a datagram until one comes back stamped when it arrived rather than when it was
// read (the read waits 2 ms after the send).
func keepStamps(timeout time.Duration) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("timestamp keeper: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		unix.Close(fd)
		return fmt.Errorf("timestamp keeper: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return fmt.Errorf("timestamp keeper: %w", err)
	}
	self, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return err
	}
	const wait = 2 * time.Millisecond
	buf, oob := make([]byte, 8), make([]byte, unix.CmsgSpace(16))
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		if err := unix.Sendto(fd, []byte{1}, 0, self); err != nil {
			return fmt.Errorf("timestamp keeper: %w", err)
		}
		time.Sleep(wait)
		_, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_DONTWAIT)
		read := time.Now().UnixNano()
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return fmt.Errorf("timestamp keeper: %w", err)
		}
		if at, ok := timestamp(oob[:oobn]); ok && read-at >= int64(wait)/2 {
			return nil // stamped on arrival: the socket stays open, and stamping on
		}
	}
	unix.Close(fd)
	return fmt.Errorf("the kernel did not start stamping received packets within %v", timeout)
}
