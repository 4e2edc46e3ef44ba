package verify

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bodies fixed byte for byte by the contract.
const (
	PingBody    = `{"ok":true,"message":"OK"}`
	DevicesBody = `[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},{"id":5,"type":"sensor","on":true}]`
	HealthzBody = `{"status":"ok"}`
)

// clockSkew is how far a target's clock may be from ours (same machine or cluster, NTP).
const clockSkew = 5 * time.Second

func checkHealthz(ctx context.Context, r *run, e *endpoint) {
	if resp := r.request(ctx, e, "GET /healthz", "GET", "/healthz", "", 200); resp != nil {
		m, err := object(resp.body, "status")
		if err == nil {
			err = expectFields(m, map[string]any{"status": "ok"})
		}
		e.add("body", err == nil, resp.latency, "expected %s: %s", HealthzBody, errText(err))
	}
}

func checkNotFound(ctx context.Context, r *run, e *endpoint) {
	r.request(ctx, e, "GET unknown path", "GET", "/no-such-path-"+randomHex(6), "", 404)
}

// checkConnection checks HTTP/1.1 keep-alive (the second request reuses the connection) and
// that Connection: close is honoured (the server closes after answering).
func checkConnection(ctx context.Context, r *run, e *endpoint) {
	var reused []bool
	for i := 0; i < 2; i++ {
		if err := r.traced(ctx, func(info httptrace.GotConnInfo) { reused = append(reused, info.Reused) }); err != nil {
			e.add("keep-alive", false, 0, "GET /healthz: %v", err)
			return
		}
	}
	if r.noKeepAlive {
		e.add("keep-alive declared off", len(reused) == 2 && !reused[1], 0,
			"target.yaml says keepAlive: false, but the second request reused the connection (reused: %v)", reused)
	} else {
		e.add("keep-alive", len(reused) == 2 && reused[1], 0,
			"expected the second request to reuse the first one's connection (reused: %v)", reused)
	}

	u, _ := url.Parse(r.base)
	if u.Scheme != "http" {
		e.skip("connection: close", "only checked over plain http")
		return
	}
	start := time.Now()
	err := requestWithClose(ctx, u.Host, r.timeout)
	e.add("connection: close", err == nil, time.Since(start), "expected a 200 and the connection closed by the server: %s", errText(err))
}

// traced sends GET /healthz within the request timeout, reads its body within the limit and
// reports the connection it used.
func (r *run) traced(ctx context.Context, gotConn func(httptrace.GotConnInfo)) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: gotConn}), "GET", r.base+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = readBody(resp.Body, MaxBodyBytes)
	return err
}

// requestWithClose sends GET /healthz with Connection: close on a raw connection and waits
// for the server to close it. What it reads is capped like any response.
func requestWithClose(ctx context.Context, host string, timeout time.Duration) error {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host); err != nil {
		return err
	}
	br := bufio.NewReader(&capped{r: conn, n: MaxHeaderBytes + MaxBodyBytes})
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("reading the response: %w", err)
	}
	_, err = readBody(resp.Body, MaxBodyBytes)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	// The server must now close: the next read sees EOF, not a timeout.
	if _, err := br.ReadByte(); err != io.EOF {
		if errors.Is(err, errTooLarge) {
			return fmt.Errorf("the server sent more bytes after the response")
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("the server kept the connection open for %s", timeout)
		}
		if err == nil {
			return fmt.Errorf("the server sent more bytes after the response")
		}
		if !strings.Contains(err.Error(), "reset") {
			return err
		}
	}
	return nil
}

// errTooLarge ends a raw read past its cap.
var errTooLarge = errors.New("response larger than the verifier reads")

// capped reads at most n bytes from r, then fails with errTooLarge.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

func checkPing(ctx context.Context, r *run, e *endpoint) {
	if resp := r.request(ctx, e, "GET /api/ping", "GET", "/api/ping", "", 200); resp != nil {
		e.exactBody("body", resp, PingBody)
	}
}

func checkTime(ctx context.Context, r *run, e *endpoint) {
	resp := r.request(ctx, e, "GET /api/time", "GET", "/api/time", "", 200)
	if resp == nil {
		return
	}
	m, err := object(resp.body, "serverTime")
	var ts int64
	if err == nil {
		var ok bool
		if ts, ok = integer(m["serverTime"]); !ok {
			err = fmt.Errorf("serverTime must be an integer, got %s", describe(m["serverTime"]))
		}
	}
	e.add("body shape", err == nil, resp.latency, `expected {"serverTime":<unix seconds>}: %s`, errText(err))
	if err == nil {
		e.near("serverTime near now", time.Unix(ts, 0), time.Now(), clockSkew+time.Second, resp.latency)
	}
}

// near checks that a target's clock reading is within tolerance of a reference reading.
func (e *endpoint) near(name string, got, want time.Time, tolerance, latency time.Duration) {
	diff := got.Sub(want)
	if diff < 0 {
		diff = -diff
	}
	e.add(name, diff <= tolerance, latency, "got %s, reference %s (off by %s, tolerance %s)",
		got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano), diff.Round(time.Millisecond), tolerance)
}

func checkDevicesStatus(ctx context.Context, r *run, e *endpoint) {
	if resp := r.request(ctx, e, "GET /devices/status", "GET", "/devices/status", "", 200); resp != nil {
		e.exactBody("body", resp, DevicesBody)
	}
}

// commandLatency is the simulated hardware latency of a device command.
const commandLatency = 2 * time.Millisecond

// timerSlack is how early a real event loop may end a timed wait: libuv (Node, uvloop)
// times a wait from a millisecond clock cached when its loop iteration began, so a 2 ms
// timer can fire after a little over 1 ms (1.994 ms seen from node-fastify in the lab).
const timerSlack = time.Millisecond

// earliest is the shortest answer a server that honours a delay of d can give: d less the
// loop's timer slack or 5%, whichever is larger. A server that ignores the delay answers
// on loopback in well under that (a few hundred µs), so it still fails.
func earliest(d time.Duration) time.Duration {
	return d - max(timerSlack, d/20)
}

func checkDevicesCommand(ctx context.Context, r *run, e *endpoint) {
	valid := []struct {
		id           int
		body, action string
	}{
		{7, `{"action":"set","value":21,"unit":"C"}`, "set"},
		{42, `{"action":"toggle"}`, "toggle"},
	}
	for _, v := range valid {
		path := fmt.Sprintf("/devices/%d/command", v.id)
		label := "POST " + path + " " + v.body
		resp := r.request(ctx, e, label, "POST", path, v.body, 200)
		if resp == nil {
			continue
		}
		m, err := object(resp.body, "deviceId", "action", "status", "latencyMs")
		if err == nil {
			err = expectFields(m, map[string]any{"deviceId": int64(v.id), "action": v.action, "status": "accepted", "latencyMs": int64(2)})
		}
		e.add(label+": body", err == nil, resp.latency,
			`expected {"deviceId":%d,"action":%q,"status":"accepted","latencyMs":2}: %s`, v.id, v.action, errText(err))
		e.add(label+": simulated latency", resp.latency >= earliest(commandLatency), resp.latency,
			"expected at least %s (%s allowing for the event loop's timer), took %s",
			commandLatency, earliest(commandLatency), resp.latency.Round(time.Microsecond))
	}

	invalid := []struct{ what, path, body string }{
		{"malformed JSON", "/devices/7/command", `{"action":"set",`},
		{"body not an object", "/devices/7/command", `["set"]`},
		{"non-numeric id", "/devices/abc/command", `{"action":"set"}`},
		{"id not positive", "/devices/0/command", `{"action":"set"}`},
		{"missing action", "/devices/7/command", `{"value":21}`},
		{"empty action", "/devices/7/command", `{"action":""}`},
		{"non-numeric value", "/devices/7/command", `{"action":"set","value":"hot"}`},
	}
	for _, c := range invalid {
		label := "400 on " + c.what
		if resp := r.request(ctx, e, label, "POST", c.path, c.body, 400); resp != nil {
			e.errorBody(label, resp)
		}
	}
}

// expectFields compares decoded JSON fields with expected Go values (int64, string, bool).
func expectFields(m map[string]any, want map[string]any) error {
	var bad []string
	for k, w := range want {
		got := m[k]
		ok := false
		switch w := w.(type) {
		case int64:
			n, isInt := integer(got)
			ok = isInt && n == w
		default:
			ok = got == w
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: expected %v, got %s", k, describe(jsonValue(w)), describe(got)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(sorted(bad), "; "))
	}
	return nil
}

func checkEventsLive(ctx context.Context, r *run, e *endpoint) {
	polls := []struct {
		label    string
		query    string
		min, max time.Duration
	}{
		{"no wait", "", 0, 250 * time.Millisecond},
		// From earliest(wait): a loop may end a wait a little early (99.x ms seen from
		// python-starlette in the lab); one that ignores wait answers in ~1 ms.
		{"wait=100", "?wait=100", earliest(100 * time.Millisecond), 1500 * time.Millisecond},
		{"wait=5000 (capped at 500)", "?wait=5000", earliest(500 * time.Millisecond), 1500 * time.Millisecond},
	}
	for _, p := range polls {
		label := "GET /events/live" + p.query
		resp := r.request(ctx, e, label, "GET", "/events/live"+p.query, "", 200)
		if resp == nil {
			continue
		}
		m, err := object(resp.body, "event", "deviceId", "ts")
		var ts int64
		if err == nil {
			err = expectFields(m, map[string]any{"event": "motion", "deviceId": int64(5)})
		}
		if err == nil {
			var ok bool
			if ts, ok = integer(m["ts"]); !ok {
				err = fmt.Errorf("ts must be an integer (unix ms), got %s", describe(m["ts"]))
			}
		}
		e.add(label+": body", err == nil, resp.latency, `expected {"event":"motion","deviceId":5,"ts":<unix ms>}: %s`, errText(err))
		if err == nil {
			e.near(label+": ts near now", time.UnixMilli(ts), time.Now(), clockSkew, resp.latency)
		}
		e.add(label+": "+p.label, resp.latency >= p.min && resp.latency <= p.max, resp.latency,
			"expected between %s and %s, took %s", p.min, p.max, resp.latency.Round(time.Millisecond))
	}
	for _, bad := range []string{"abc", "-1", "1.5"} {
		label := "400 on wait=" + bad
		if resp := r.request(ctx, e, label, "GET", "/events/live?wait="+bad, "", 400); resp != nil {
			e.errorBody(label, resp)
		}
	}
}

func checkHealth(ctx context.Context, r *run, e *endpoint) {
	var ids []string
	for i := 1; i <= 2; i++ {
		label := fmt.Sprintf("GET /health #%d", i)
		resp := r.request(ctx, e, label, "GET", "/health", "", 200)
		if resp == nil {
			continue
		}
		m, err := object(resp.body, "status", "timestamp", "framework")
		var ts int64
		if err == nil {
			err = expectFields(m, map[string]any{"status": "ok"})
		}
		if err == nil {
			if fw, ok := m["framework"].(string); !ok || fw == "" {
				err = fmt.Errorf("framework must be a non-empty string, got %s", describe(m["framework"]))
			}
		}
		if err == nil {
			var ok bool
			if ts, ok = integer(m["timestamp"]); !ok {
				err = fmt.Errorf("timestamp must be an integer (unix ms), got %s", describe(m["timestamp"]))
			}
		}
		e.add(label+": body", err == nil, resp.latency, `expected {"status":"ok","timestamp":<unix ms>,"framework":"<name>"}: %s`, errText(err))
		if err == nil {
			e.near(label+": timestamp near now", time.UnixMilli(ts), time.Now(), clockSkew, resp.latency)
		}
		id := resp.header.Get("X-Request-ID")
		e.add(label+": X-Request-ID", id != "", resp.latency, "got %q", id)
		if id != "" {
			ids = append(ids, id)
		}
		rt := resp.header.Get("X-Response-Time")
		e.add(label+": X-Response-Time", strings.ContainsAny(rt, "0123456789"), resp.latency, "expected a duration such as 0.12ms, got %q", rt)
	}
	if len(ids) == 2 {
		e.add("X-Request-ID unique", ids[0] != ids[1], 0, "two requests got %q and %q", ids[0], ids[1])
	}
}

// jsonValue turns an expected Go value into what decode would produce, for messages.
func jsonValue(v any) any {
	if n, ok := v.(int64); ok {
		return json.Number(strconv.FormatInt(n, 10))
	}
	return v
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
