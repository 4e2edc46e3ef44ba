package verify

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

func verifyFake(t *testing.T, srv string, endpoints ...preset.Endpoint) Report {
	t.Helper()
	rep, err := Verify(context.Background(), Options{BaseURL: srv, Endpoints: endpoints, Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestFollowingTheContractPassesEverything(t *testing.T) {
	srv := startFake(t)
	rep := verifyFake(t, srv.URL)
	if !rep.Passed() {
		t.Fatalf("a target following the contract failed:\n%s", strings.Join(rep.Failures(), "\n"))
	}
	if len(rep.Endpoints) != 3+len(preset.AllEndpoints()) {
		t.Errorf("expected one entry per endpoint plus healthz, not-found and connection; got %d", len(rep.Endpoints))
	}
	checks := 0
	for _, e := range rep.Endpoints {
		if len(e.Checks) == 0 {
			t.Errorf("%s has no checks", e.Endpoint)
		}
		for _, c := range e.Checks {
			checks++
			if c.Skipped && !strings.HasPrefix(c.Name, "reaches the database") {
				t.Errorf("%s: %s skipped: %s", e.Endpoint, c.Name, c.Detail)
			}
		}
	}
	// The long poll's checks record how long the target held the request.
	c, ok := rep.Find("events-live", "GET /events/live?wait=100: wait=100")
	if !ok || c.Latency < 100*time.Millisecond {
		t.Errorf("wait=100 check missing or too fast: %+v", c)
	}
	t.Logf("%d checks passed", checks)
}

// Each case breaks one rule; the checks named by wantCheck (and only those) must fail, with
// wantDetail in the detail of the first failure.
func TestBrokenRulesAreCaught(t *testing.T) {
	cases := []struct {
		brk        string
		endpoints  []preset.Endpoint
		wantCheck  []string
		wantDetail string
	}{
		{"content-type", eps(preset.Ping), list("GET /api/ping: content-type"), `got "application/json"`},
		{"no-server", eps(preset.Ping), list("server header"), `got ""`},
		{"no-date", eps(preset.Ping), list("date header"), `got ""`},
		{"no-framing", eps(preset.Ping), list("GET /api/ping: framing"), "got neither"},
		{"ping-body", eps(preset.Ping), list("body"), `"message\":\"ok\"`},
		{"time-string", eps(preset.Time), list("body shape"), "serverTime must be an integer, got string"},
		{"time-skew", eps(preset.Time), list("serverTime near now"), "off by 1m"},
		{"devices-key-order", eps(preset.DevicesStatus), list("body"), `{\"type\":\"lightbulb\",\"id\":1`},
		{"command-no-latency", eps(preset.DevicesCommand), list("simulated latency"), "expected at least 2ms"},
		{"command-accepts-bad-json", eps(preset.DevicesCommand), list("400 on malformed JSON: status", "400 on body not an object: status", "400 on missing action: status", "400 on empty action: status"), "expected 400, got 200"},
		{"command-bad-id-404", eps(preset.DevicesCommand), list("400 on non-numeric id: status", "400 on id not positive: status"), "expected 400, got 404"},
		{"error-body-text", eps(preset.DevicesCommand), list("error body"), "not JSON"},
		{"events-ignore-wait", eps(preset.EventsLive), list("wait=100: wait=100", "wait=5000 (capped at 500)"), "expected between 95ms and 1.5s"},
		{"events-no-cap", eps(preset.EventsLive), list("wait=5000 (capped at 500)"), "expected between 475ms and 1.5s, took 2"},
		{"health-same-id", eps(preset.Health), list("X-Request-ID unique"), `got "req-1" and "req-1"`},
		{"health-no-response-time", eps(preset.Health), list("X-Response-Time"), `got ""`},
		{"db-ping-reserialized", eps(preset.DBPing), list("body"), `expected "{\"ok\" : true`},
		{"db-time-compact", eps(preset.DBTime), list("body"), `got "{\"serverTime\":`},
		{"document-bigint-string", eps(preset.DBDocument), list(": row"), "created_at: expected number 1700000037, got string \"1700000037\""},
		{"document-missing-200", eps(preset.DBDocument), list("404 on id 10001 (no row): status"), "expected 404, got 200"},
		{"documents-default-5", eps(preset.DBDocuments), list("GET /api/db/documents: rows", "GET /api/db/documents: size"), "expected 10 rows, got 5"},
		{"documents-unbounded", eps(preset.DBDocuments), list("400 on limit=101: status"), "expected 400, got 200"},
		{"primes-include-1", eps(preset.CPUPrimes), list(": primes", ": count", ": size"), "element 0 is 1, expected 2"},
		{"primes-spaces", eps(preset.CPUPrimes), list("GET /api/cpu/primes: size"), "expected 538469 bytes (compact JSON), got 616966"},
		{"not-found-200", eps(preset.Ping), list("GET unknown path: status"), "expected 404, got 200"},
		{"healthz-body", eps(preset.Ping), list("body"), `status: expected string "ok", got string "starting"`},
		{"no-keepalive", eps(preset.Ping), list("keep-alive"), "expected the second request to reuse"},
		{"ignore-connection-close", eps(preset.Ping), list("connection: close"), "kept the connection open"},
	}
	for _, tc := range cases {
		t.Run(tc.brk, func(t *testing.T) {
			t.Parallel()
			rep := verifyFake(t, startFake(t, tc.brk).URL, tc.endpoints...)
			failures := failed(rep)
			if len(failures) == 0 {
				t.Fatalf("breaking %q failed no check", tc.brk)
			}
			for _, f := range failures {
				if !matchesAny(f.Name, tc.wantCheck) {
					t.Errorf("unexpected failure %s: %s: %s", f.endpoint, f.Name, f.Detail)
				}
			}
			for _, want := range tc.wantCheck {
				found := false
				for _, f := range failures {
					found = found || strings.Contains(f.Name, want)
				}
				if !found {
					t.Errorf("check %q did not fail; failures: %v", want, rep.Failures())
				}
			}
			if !strings.Contains(failures[0].Detail, tc.wantDetail) {
				t.Errorf("detail %q does not contain %q", failures[0].Detail, tc.wantDetail)
			}
		})
	}
}

// An event loop whose timers end a wait a little early (libuv's cached millisecond clock)
// follows the contract; the no-delay cases above show a server that ignores it still fails.
func TestEarlyEventLoopTimersPass(t *testing.T) {
	rep := verifyFake(t, startFake(t, "timers-early").URL, preset.DevicesCommand, preset.EventsLive)
	if !rep.Passed() {
		t.Fatalf("a loop ending waits within its timer granularity failed: %v", rep.Failures())
	}
}

func TestTrailingNewlineIsTolerated(t *testing.T) {
	rep := verifyFake(t, startFake(t, "ping-newline").URL, preset.Ping)
	if !rep.Passed() {
		t.Fatalf("a trailing newline is JSON whitespace: %v", rep.Failures())
	}
}

func TestUnreachableTargetFailsEveryEndpoint(t *testing.T) {
	srv := startFake(t)
	url := srv.URL
	srv.Close()
	rep := verifyFake(t, url, preset.Ping)
	for _, e := range rep.Endpoints {
		if e.Passed() {
			t.Errorf("%s passed against a closed server", e.Endpoint)
		}
	}
	c, _ := rep.Find("ping", "GET /api/ping: request")
	if !strings.Contains(c.Detail, "connection refused") {
		t.Errorf("detail should say why: %q", c.Detail)
	}
}

func TestAdminDSNFailureIsReportedWithoutPassword(t *testing.T) {
	srv := startFake(t)
	rep, err := Verify(context.Background(), Options{
		BaseURL:   srv.URL,
		Endpoints: eps(preset.DBPing),
		AdminDSN:  "postgres://admin:s3cret-pw@127.0.0.1:1/bench?sslmode=disable&connect_timeout=2",
	})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := rep.Find("db-ping", "reaches the database (pg_stat_statements calls)")
	if !ok || c.Pass || c.Skipped {
		t.Fatalf("an unusable admin DSN must fail the DB check, got %+v", c)
	}
	if !strings.Contains(c.Detail, "connecting to the admin DSN") {
		t.Errorf("detail should say what failed: %q", c.Detail)
	}
	var out strings.Builder
	rep.WriteText(&out, true)
	if strings.Contains(out.String(), "s3cret-pw") || strings.Contains(c.Detail, "s3cret-pw") {
		t.Errorf("the password leaked into the report:\n%s", out.String())
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{BaseURL: "127.0.0.1:8080"},
		{BaseURL: "ftp://x"},
		{BaseURL: "http://127.0.0.1:1", Endpoints: []preset.Endpoint{"pong"}},
	} {
		if _, err := Verify(context.Background(), o); err == nil {
			t.Errorf("Verify(%+v) accepted bad options", o)
		}
	}
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://bench:pw123@127.0.0.1:5432/bench?sslmode=disable": "postgres://bench:xxxxx@127.0.0.1:5432/bench?sslmode=disable",
		"host=127.0.0.1 user=bench password=pw123 dbname=bench":       "host=127.0.0.1 user=bench password=xxxxx dbname=bench",
		"postgres://bench@127.0.0.1/bench":                            "postgres://bench@127.0.0.1/bench",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpectedRowsAndPrimes(t *testing.T) {
	// Spot values worked out by hand from schema.sql's formulas.
	d := ExpectedDocument(1)
	if d["queue"] != "queue-01" || d["sender"] != "device-0001@home.example" || d["ttl"] != int64(4200) ||
		d["created_at"] != int64(1700000037) || len(d["body"].(string)) != 278 ||
		!strings.HasPrefix(d["body"].(string), "c4ca4238a0b923820dcc509a6f75849b ") {
		t.Errorf("document 1 = %v", d)
	}
	it := ExpectedItem(7)
	if it["category"] != "security" || it["in_stock"] != false || it["price_cents"] != int64(499+5433) {
		t.Errorf("item 7 = %v", it)
	}
	p := PrimesBelow(1000000)
	if len(p) != DefaultPrimeCount || p[999] != 7919 || p[len(p)-1] != 999983 {
		t.Errorf("primes: %d, 1000th %d, last %d", len(p), p[999], p[len(p)-1])
	}
	if got := trialDivision(1000); len(got) != len(PrimesBelow(1000)) {
		t.Errorf("the fake's trial division disagrees with the sieve below 1000")
	}
}

func TestWriteText(t *testing.T) {
	rep := verifyFake(t, startFake(t, "ping-body").URL, preset.Ping, preset.Time)
	var out strings.Builder
	rep.WriteText(&out, false)
	s := out.String()
	for _, want := range []string{"FAIL  ping", "PASS  time", "FAIL body", "1 of "} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "ok   GET /api/time") {
		t.Errorf("non-verbose report prints passing checks:\n%s", s)
	}
}

type failure struct {
	endpoint string
	Check
}

func failed(rep Report) []failure {
	var out []failure
	for _, e := range rep.Endpoints {
		for _, c := range e.Checks {
			if !c.Pass && !c.Skipped {
				out = append(out, failure{e.Endpoint, c})
			}
		}
	}
	return out
}

func matchesAny(name string, subs []string) bool {
	for _, s := range subs {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func eps(e ...preset.Endpoint) []preset.Endpoint { return e }
func list(s ...string) []string                  { return s }

// A target that declares keepAlive: false is held to that declaration instead.
func TestDeclaredNoKeepAlive(t *testing.T) {
	closing := startFake(t, "no-keepalive")
	rep, err := Verify(context.Background(), Options{BaseURL: closing.URL, Endpoints: eps(preset.Ping), NoKeepAlive: true, Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed() {
		t.Fatalf("a closing target that declares it failed:\n%s", strings.Join(rep.Failures(), "\n"))
	}
	keeping := startFake(t)
	rep, err = Verify(context.Background(), Options{BaseURL: keeping.URL, Endpoints: eps(preset.Ping), NoKeepAlive: true, Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Failures()
	if len(f) != 1 || !strings.Contains(f[0], "keep-alive declared off") {
		t.Fatalf("a target that keeps connections open despite declaring otherwise: %v", f)
	}
}

// A target whose address refuses connections at first (in a cluster: a Service whose ready
// pod the node's proxy has not programmed yet) is checked once it accepts them, when the
// options allow the wait; without it the checks run at once and fail.
func TestTargetReachedLateIsWaitedFor(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // refused until the server below listens on the same port
	opts := Options{BaseURL: "http://" + addr, Endpoints: []preset.Endpoint{preset.Ping}, Timeout: 4 * time.Second}
	rep, err := Verify(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed() {
		t.Fatal("passed with nothing listening and no wait")
	}

	f := &fakeTarget{breaks: map[string]bool{}}
	srv := httptest.NewUnstartedServer(f.routes())
	t.Cleanup(srv.Close)
	const late = 700 * time.Millisecond
	started := make(chan error, 1)
	go func() {
		time.Sleep(late)
		l, err := net.Listen("tcp", addr)
		if err == nil {
			_ = srv.Listener.Close()
			srv.Listener = l
			srv.Start()
		}
		started <- err
	}()
	opts.ReachWithin = 10 * time.Second
	begin := time.Now()
	rep, err = Verify(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-started; err != nil {
		t.Fatalf("the late server could not listen on %s: %v", addr, err)
	}
	if !rep.Passed() {
		t.Errorf("a target reachable after %s failed within a 10 s wait: %v", late, rep.Failures())
	}
	if took := time.Since(begin); took < late {
		t.Errorf("checks finished after %s, before the target listened (%s)", took, late)
	}
}
