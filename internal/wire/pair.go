// Package wire measures request latency on the wire: from the packets of the target's port,
// each HTTP/1.1 request is paired with its response on the same TCP connection, so the
// figure has no load generator in it. Pairing is pure (this file); capture_linux.go feeds it
// from a packet socket.
package wire

import "net/netip"

// Conn names a TCP connection by its client end; the server end is the one port captured.
type Conn struct {
	Addr netip.Addr
	Port uint16
}

// Segment is what pairing needs of one TCP segment: when, which way, whether it carried
// data, and whether it closed the connection. Payloads are never kept.
type Segment struct {
	At       int64 // capture timestamp, ns
	Conn     Conn
	ToServer bool
	Data     bool // the segment carries payload
	Close    bool // FIN or RST
	// Measured marks a request of the measured window (the adapter reads the phase header
	// of loadgen/bench.js); read only on the first data segment of a request.
	Measured bool
	// Status is the HTTP status of a server segment that starts a status line
	// ("HTTP/1.1 503 ..."), 0 for any other; read only on the first data segment of a
	// response.
	Status int
}

// conn is a connection's pairing state: a request is outstanding from its first data
// segment until the server's first data segment.
type conn struct {
	outstanding bool
	measured    bool
	sentAt      int64
}

// Pairer pairs requests with responses, connection by connection. HTTP/1.1 without
// pipelining (k6 never pipelines): a request is the first client data segment after the
// previous response began; its latency runs from that segment to the server's first data
// segment (request first byte to response first byte). Later segments of either side
// (a body, a long response) belong to the same exchange.
type Pairer struct {
	conns  map[Conn]*conn
	budget *connBudget
	// Latency of the measured requests that were answered.
	Latency Histogram
	// Requests is every measured request seen; Unanswered those whose connection closed,
	// or the capture ended, before a response byte.
	Requests, Unanswered int64
	// Other counts requests outside the measured window (warmup, health checks).
	Other int64
	// Refused counts the client's data segments on connections not followed because the
	// budget was spent: their requests are in no other count, so a capture with refusals
	// reads as incomplete (fewer requests than k6 counted), never as wrong.
	Refused int64
	// Statuses counts the measured requests' responses by HTTP status (0: no status line
	// in the response's first segment). At most 501 keys: a status is 100..599 or 0.
	Statuses map[int]int64
}

// DefaultMaxConns is how many open connections a capture follows at once, on all its
// interfaces together. Anything that reaches the target's port decides how many
// connections it opens; each followed one costs about 120 bytes, so without a bound a
// million idle connections would hold over 100 MiB of the agent's memory. 32,768 is
// above what one target pod's load opens (a connection per virtual user), and at most
// 16 captures at once hold about 60 MiB in the worst case.
const DefaultMaxConns = 1 << 15

// connBudget is the connections a capture may follow, shared by its pairers (one per
// interface: a segment crosses several, and each would count it).
type connBudget struct{ max, used int }

// NewPairer returns an empty pairer with a budget of DefaultMaxConns connections.
func NewPairer() *Pairer { return newPairer(&connBudget{max: DefaultMaxConns}) }

func newPairer(b *connBudget) *Pairer {
	return &Pairer{conns: map[Conn]*conn{}, budget: b, Statuses: map[int]int64{}}
}

// Add feeds one segment; segments must come in capture order.
func (p *Pairer) Add(s Segment) {
	c := p.conns[s.Conn]
	if c == nil {
		if !s.Data {
			return // a handshake or a bare ACK: nothing to pair yet
		}
		if p.budget.used >= p.budget.max {
			if s.ToServer {
				p.Refused++
			}
			return
		}
		p.budget.used++
		c = &conn{}
		p.conns[s.Conn] = c
	}
	switch {
	case s.Data && s.ToServer && !c.outstanding:
		c.outstanding, c.measured, c.sentAt = true, s.Measured, s.At
		if s.Measured {
			p.Requests++
		} else {
			p.Other++
		}
	case s.Data && !s.ToServer && c.outstanding:
		c.outstanding = false
		if c.measured {
			p.Latency.Record(s.At - c.sentAt)
			p.Statuses[s.Status]++
		}
	}
	if s.Close {
		p.end(c)
		p.forget(s.Conn)
	}
}

func (p *Pairer) forget(k Conn) {
	delete(p.conns, k)
	p.budget.used--
}

// Finish ends the capture: requests still outstanding were not answered within it.
func (p *Pairer) Finish() {
	for k, c := range p.conns {
		p.end(c)
		p.forget(k)
	}
}

func (p *Pairer) end(c *conn) {
	if c.outstanding && c.measured {
		p.Unanswered++
	}
	c.outstanding = false
}

// Result is the measured window's wire latency, in microseconds.
type Result struct {
	Requests, Unanswered          int64
	P50, P90, P95, P99, P999, Max int64
	Dropped                       int64 // packets the kernel dropped (capture incomplete if > 0)
	// Refused is the client data segments on connections beyond the capture's budget
	// (DefaultMaxConns): not followed, in no other count.
	Refused int64
	// Statuses is the measured responses by HTTP status (Pairer.Statuses).
	Statuses map[int]int64
}

// Result summarizes what was paired.
func (p *Pairer) Result() Result {
	us := func(ns int64) int64 { return (ns + 500) / 1000 }
	h := &p.Latency
	statuses := make(map[int]int64, len(p.Statuses))
	for k, v := range p.Statuses {
		statuses[k] = v
	}
	return Result{Requests: p.Requests, Unanswered: p.Unanswered, Refused: p.Refused, Statuses: statuses,
		P50: us(h.Quantile(0.50)), P90: us(h.Quantile(0.90)), P95: us(h.Quantile(0.95)),
		P99: us(h.Quantile(0.99)), P999: us(h.Quantile(0.999)), Max: us(h.Max())}
}
