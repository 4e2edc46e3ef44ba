package main

import (
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serve runs one request through the real router (no database: pool is nil).
func serve(t *testing.T, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	newRouter(nil).ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec
}

func TestStaticBodies(t *testing.T) {
	cases := []struct{ path, want string }{
		{"/api/ping", `{"ok":true,"message":"OK"}`},
		{"/healthz", `{"status":"ok"}`},
		{"/devices/status", `[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},{"id":5,"type":"sensor","on":true}]`},
		{"/nowhere", `{"error":"not found"}`},
	}
	for _, c := range cases {
		rec := serve(t, "GET", c.path, "")
		if got := rec.Body.String(); got != c.want {
			t.Errorf("%s: body %q, want %q", c.path, got, c.want)
		}
		if ct := rec.Header().Get("Content-Type"); ct != jsonType {
			t.Errorf("%s: Content-Type %q", c.path, ct)
		}
		if rec.Header().Get("Server") == "" || rec.Header().Get("Content-Length") != strconv.Itoa(len(c.want)) {
			t.Errorf("%s: headers %v", c.path, rec.Header())
		}
	}
	if code := serve(t, "GET", "/nowhere", "").Code; code != 404 {
		t.Errorf("unknown path: status %d, want 404", code)
	}
}

func TestTimeIsCurrentUnixSeconds(t *testing.T) {
	var got struct{ ServerTime int64 }
	if err := json.Unmarshal(serve(t, "GET", "/api/time", "").Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if d := time.Now().Unix() - got.ServerTime; d < 0 || d > 1 {
		t.Errorf("serverTime %d is %d s away from now", got.ServerTime, d)
	}
}

func TestHealthMiddleware(t *testing.T) {
	a, b := serve(t, "GET", "/health", ""), serve(t, "GET", "/health", "")
	if a.Header().Get("X-Request-ID") == "" || a.Header().Get("X-Request-ID") == b.Header().Get("X-Request-ID") {
		t.Errorf("X-Request-ID not unique: %q %q", a.Header().Get("X-Request-ID"), b.Header().Get("X-Request-ID"))
	}
	if rt := a.Header().Get("X-Response-Time"); !regexp.MustCompile(`^\d+\.\d\dms$`).MatchString(rt) {
		t.Errorf("X-Response-Time %q", rt)
	}
	var got healthResponse
	if err := json.Unmarshal(a.Body.Bytes(), &got); err != nil || got.Status != "ok" || got.Framework != "net/http" ||
		time.Now().UnixMilli()-got.Timestamp > 1000 {
		t.Errorf("health body %s (%v)", a.Body, err)
	}
	if serve(t, "GET", "/api/ping", "").Header().Get("X-Request-ID") != "" {
		t.Error("the middleware must apply to /health only")
	}
}

func TestDeviceCommand(t *testing.T) {
	cases := []struct {
		path, body string
		status     int
		want       string
	}{
		{"/devices/7/command", `{"action":"set","value":21,"unit":"C"}`, 200, `{"deviceId":7,"action":"set","status":"accepted","latencyMs":2}`},
		{"/devices/7/command", `{"action":"toggle"}`, 200, `{"deviceId":7,"action":"toggle","status":"accepted","latencyMs":2}`},
		{"/devices/abc/command", `{"action":"set"}`, 400, `{"error":"device id must be a positive integer below 2^63"}`},
		{"/devices/0/command", `{"action":"set"}`, 400, `{"error":"device id must be a positive integer below 2^63"}`},
		{"/devices/-1/command", `{"action":"set"}`, 400, `{"error":"device id must be a positive integer below 2^63"}`},
		{"/devices/7/command", `{"action":"set"`, 400, `{"error":"body is not valid JSON"}`},
		{"/devices/7/command", `{"action":"set"} x`, 400, `{"error":"body is not valid JSON"}`},
		{"/devices/7/command", `[1,2]`, 400, `{"error":"body must be a JSON object"}`},
		{"/devices/7/command", `{"action":""}`, 400, `{"error":"action must be a non-empty string"}`},
		{"/devices/7/command", `{"value":1}`, 400, `{"error":"action must be a non-empty string"}`},
		{"/devices/7/command", `{"action":"set","value":"21"}`, 400, `{"error":"value must be a number"}`},
		{"/devices/7/command", `{"action":"set","value":null}`, 400, `{"error":"value must be a number"}`},
		{"/devices/7/command", `{"action":"set","unit":5}`, 400, `{"error":"unit must be a string"}`},
	}
	for _, c := range cases {
		start := time.Now()
		rec := serve(t, "POST", c.path, c.body)
		if rec.Code != c.status || rec.Body.String() != c.want {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, rec.Code, rec.Body, c.status, c.want)
		}
		if c.status == 200 && time.Since(start) < commandLatency {
			t.Errorf("POST %s answered before the simulated 2 ms", c.path)
		}
	}
}

func TestLongPoll(t *testing.T) {
	cases := []struct {
		query   string
		status  int
		minWait time.Duration
	}{
		{"", 200, 0},
		{"?wait=30", 200, 30 * time.Millisecond},
		{"?wait=99999999999999999999999", 200, maxLongPoll * time.Millisecond},
		{"?wait=-5", 400, 0},
		{"?wait=abc", 400, 0},
		{"?wait=", 400, 0},
		{"?wait=+5", 400, 0},
	}
	for _, c := range cases {
		start := time.Now()
		rec := serve(t, "GET", "/events/live"+c.query, "")
		took := time.Since(start)
		if rec.Code != c.status {
			t.Errorf("%q: status %d, want %d (%s)", c.query, rec.Code, c.status, rec.Body)
			continue
		}
		if took < c.minWait || (c.minWait == maxLongPoll*time.Millisecond && took > 900*time.Millisecond) {
			t.Errorf("%q: answered after %v, want at least %v (capped at 500 ms)", c.query, took, c.minWait)
		}
		if c.status == 200 && !regexp.MustCompile(`^\{"event":"motion","deviceId":5,"ts":\d{13}\}$`).Match(rec.Body.Bytes()) {
			t.Errorf("%q: body %s", c.query, rec.Body)
		}
	}
}

func TestPrimes(t *testing.T) {
	rec := serve(t, "GET", "/api/cpu/primes", "")
	var primes []int
	if err := json.Unmarshal(rec.Body.Bytes(), &primes); err != nil {
		t.Fatal(err)
	}
	// The contract's figures for the default N = 1000000.
	if len(primes) != 78498 || rec.Body.Len() != 538469 || primes[len(primes)-1] != 999983 {
		t.Errorf("got %d primes in %d bytes, last %d", len(primes), rec.Body.Len(), primes[len(primes)-1])
	}
	for query, want := range map[string]string{"?n=2": "[]", "?n=12": "[2,3,5,7,11]"} {
		if got := serve(t, "GET", "/api/cpu/primes"+query, "").Body.String(); got != want {
			t.Errorf("%s: %s, want %s", query, got, want)
		}
	}
	for _, query := range []string{"?n=1", "?n=10000001", "?n=x", "?n=-3"} {
		if code := serve(t, "GET", "/api/cpu/primes"+query, "").Code; code != 400 {
			t.Errorf("%s: status %d, want 400", query, code)
		}
	}
}

func TestDatabaseEndpointsWithoutDatabase(t *testing.T) {
	for _, path := range []string{"/api/db/ping", "/api/db/time", "/api/db/document/1", "/api/db/documents"} {
		if code := serve(t, "GET", path, "").Code; code != 503 {
			t.Errorf("%s: status %d, want 503 without DATABASE_URL", path, code)
		}
	}
	// Bad input is rejected before the database is even needed.
	for _, path := range []string{"/api/db/document/0", "/api/db/document/x", "/api/db/documents?limit=0", "/api/db/documents?limit=101"} {
		if code := serve(t, "GET", path, "").Code; code != 400 {
			t.Errorf("%s: status %d, want 400", path, code)
		}
	}
}
