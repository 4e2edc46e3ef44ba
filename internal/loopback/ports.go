// Package loopback hands out free TCP ports on 127.0.0.1 to the local mode's servers
// (targets, PostgreSQL, PgBouncer, the null responder), never the same one twice in a
// process; the runner and the local databases both need it, and neither owns it.
package loopback

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// PortRange bounds the loopback ports handed out; the zero value lets the kernel choose.
type PortRange struct{ Lo, Hi int }

var (
	portsMu sync.Mutex
	// handedOut remembers ports given to this process: a port is free when checked but only
	// taken once its server binds, so the same port must never be handed out twice.
	handedOut = map[int]bool{}
)

// FreePort returns a loopback TCP port that nothing listens on, within r when r is set.
func FreePort(r PortRange) (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	if r == (PortRange{}) {
		for i := 0; i < 20; i++ {
			p, err := tryPort(0)
			if err != nil {
				return 0, err
			}
			if !handedOut[p] {
				handedOut[p] = true
				return p, nil
			}
		}
		return 0, fmt.Errorf("no free loopback port from the kernel")
	}
	if r.Lo < 1 || r.Hi > 65535 || r.Lo > r.Hi {
		return 0, fmt.Errorf("port range %d-%d is not within 1-65535", r.Lo, r.Hi)
	}
	n := r.Hi - r.Lo + 1
	start := rand.IntN(n) // random start: parallel test binaries rarely collide
	for i := 0; i < n; i++ {
		p := r.Lo + (start+i)%n
		if handedOut[p] {
			continue
		}
		if _, err := tryPort(p); err == nil {
			handedOut[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port in %d-%d", r.Lo, r.Hi)
}

func tryPort(p int) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
