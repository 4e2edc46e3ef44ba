package wire

import (
	"net/netip"
	"testing"
)

var (
	c1 = Conn{Addr: netip.MustParseAddr("127.0.0.1"), Port: 40001}
	c2 = Conn{Addr: netip.MustParseAddr("127.0.0.1"), Port: 40002}
)

func req(at int64, c Conn, measured bool) Segment {
	return Segment{At: at, Conn: c, ToServer: true, Data: true, Measured: measured}
}
func resp(at int64, c Conn) Segment { return Segment{At: at, Conn: c, Data: true} }
func ack(at int64, c Conn, toServer bool) Segment {
	return Segment{At: at, Conn: c, ToServer: toServer}
}
func fin(at int64, c Conn, toServer bool) Segment {
	return Segment{At: at, Conn: c, ToServer: toServer, Close: true}
}

func TestPairing(t *testing.T) {
	for _, tc := range []struct {
		name                              string
		segs                              []Segment
		requests, unanswered, other, p100 int64
		latencies                         int64
	}{
		{name: "keep-alive: two exchanges on one connection, ACKs ignored",
			segs: []Segment{req(1000, c1, true), ack(1100, c1, false), resp(51_000, c1), ack(52_000, c1, true),
				req(60_000, c1, true), resp(160_000, c1)},
			requests: 2, latencies: 2, p100: 100_000},
		{name: "a body in a second segment and a response in three stay one exchange",
			segs:     []Segment{req(0, c1, true), req(5_000, c1, false), resp(40_000, c1), resp(41_000, c1), resp(42_000, c1)},
			requests: 1, latencies: 1, p100: 40_000},
		{name: "no keep-alive: handshake, exchange, close, per connection",
			segs: []Segment{ack(0, c1, true), ack(10, c1, false), req(100, c1, true), resp(30_100, c1), fin(30_200, c1, true),
				ack(0, c2, true), req(200, c2, true), resp(20_200, c2), fin(20_300, c2, false), ack(20_400, c2, true)},
			requests: 2, latencies: 2, p100: 30_000},
		{name: "interleaved connections pair independently",
			segs:     []Segment{req(0, c1, true), req(10_000, c2, true), resp(15_000, c2), resp(90_000, c1)},
			requests: 2, latencies: 2, p100: 90_000},
		{name: "warmup requests are paired but not counted",
			segs:     []Segment{req(0, c1, false), resp(10_000, c1), req(20_000, c1, true), resp(27_000, c1)},
			requests: 1, other: 1, latencies: 1, p100: 7_000},
		{name: "a request the server closed on, and one still open at the end, are unanswered",
			segs:     []Segment{req(0, c1, true), fin(5_000, c1, false), req(10_000, c2, true)},
			requests: 2, unanswered: 2},
		{name: "a response with no request (a server greeting) is ignored",
			segs:     []Segment{resp(0, c1), req(10, c1, true), resp(1_010, c1)},
			requests: 1, latencies: 1, p100: 1_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPairer()
			for _, s := range tc.segs {
				p.Add(s)
			}
			p.Finish()
			if p.Requests != tc.requests || p.Unanswered != tc.unanswered || p.Other != tc.other {
				t.Errorf("requests/unanswered/other = %d/%d/%d, want %d/%d/%d", p.Requests, p.Unanswered, p.Other, tc.requests, tc.unanswered, tc.other)
			}
			if p.Latency.Count() != tc.latencies || p.Latency.Max() != tc.p100 {
				t.Errorf("latencies %d max %d, want %d max %d", p.Latency.Count(), p.Latency.Max(), tc.latencies, tc.p100)
			}
			if len(p.conns) != 0 {
				t.Errorf("%d connections left after Finish", len(p.conns))
			}
		})
	}
}

func TestResultInMicros(t *testing.T) {
	p := NewPairer()
	for i := int64(0); i < 100; i++ {
		p.Add(req(i*1_000_000, c1, true))
		p.Add(resp(i*1_000_000+(i+1)*1_000, c1)) // 1..100 µs
	}
	r := p.Result()
	if r.Requests != 100 || r.P50 != 50 || r.P99 != 99 || r.Max != 100 {
		t.Errorf("got %+v", r)
	}
}
