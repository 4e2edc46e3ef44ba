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

// A measured response's status is counted by its code, so the engine can tell the error
// responses the target gave from the ones k6's series report.
func TestResponseStatusesCounted(t *testing.T) {
	p := NewPairer()
	status := func(at int64, c Conn, code int) Segment { s := resp(at, c); s.Status = code; return s }
	p.Add(req(0, c1, true))
	p.Add(status(1_000, c1, 503))
	p.Add(status(1_500, c1, 0)) // the rest of the same response: not a second status
	p.Add(req(2_000, c1, true))
	p.Add(status(3_000, c1, 200))
	p.Add(req(4_000, c2, false)) // a warmup request's 503 is not measured
	p.Add(status(5_000, c2, 503))
	p.Finish()
	r := p.Result()
	if r.Statuses[503] != 1 || r.Statuses[200] != 1 || len(r.Statuses) != 2 {
		t.Errorf("statuses %v, want one 503 and one 200", r.Statuses)
	}
	if got := ErrorResponses(r.Statuses, []int{200}); got != 1 {
		t.Errorf("ErrorResponses = %d, want 1 (the 503)", got)
	}
}

// ErrorResponses counts what k6 counts as failed (bench.js: any status other than the
// request's expected one), as a lower bound where the wire cannot tell which request
// expected which: interim 1xx and unreadable responses are never counted.
func TestErrorResponses(t *testing.T) {
	s := map[int]int64{0: 2, 103: 4, 200: 10, 201: 3, 302: 1, 404: 5, 503: 7}
	for _, tc := range []struct {
		expected []int
		want     int64
	}{
		{[]int{200}, 3 + 1 + 5 + 7},
		{[]int{200, 201}, 1 + 5 + 7},
		{[]int{404}, 10 + 3 + 1 + 7},
		{nil, 10 + 3 + 1 + 5 + 7},
	} {
		if got := ErrorResponses(s, tc.expected); got != tc.want {
			t.Errorf("expected %v: %d error responses, want %d", tc.expected, got, tc.want)
		}
	}
}
