package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// countingTarget answers by path and counts what it was asked: /ok 200, /teapot 418,
// /missing 404, and /hang holds the request past the plan's timeout.
type countingTarget struct {
	mu    sync.Mutex
	paths map[string]int
}

func newCountingTarget(t *testing.T) (*countingTarget, *httptest.Server) {
	c := &countingTarget{paths: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.paths[r.URL.Path]++
		c.mu.Unlock()
		switch r.URL.Path {
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
		case "/missing":
			http.NotFound(w, r)
		case "/hang":
			select { // until k6 gives up on it (its timeout) or 2 s
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return c, srv
}

func (c *countingTarget) count(path string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(c.paths[path])
}

// The error figure means "requests that did not get the status the contract expects":
// wrong statuses and timeouts count, an expected non-200 does not. bench.js makes no
// check() and carries only the system tags Gauntlet reads; this holds that meaning in
// both places a figure comes from: k6's summary (the local mode) and PromQL over the
// remote-written series (the operator).
func TestErrorsAreRequestsWithoutTheirExpectedStatus(t *testing.T) {
	testenv.Long(t)
	c, srv := newCountingTarget(t)
	p, err := workload.Build(workload.Spec{BaseURL: srv.URL,
		Requests: []workload.Request{
			{Method: "GET", Path: "/ok", Weight: 14, ExpectStatus: 200},
			{Method: "GET", Path: "/teapot", Weight: 2, ExpectStatus: 418},  // expected: not an error
			{Method: "GET", Path: "/missing", Weight: 2, ExpectStatus: 200}, // wrong status: an error
			{Method: "GET", Path: "/hang", Weight: 2, ExpectStatus: 200},    // timeout: an error
		},
		Load:      workload.Load{Model: workload.Open, Rate: 200, PreAllocatedVUs: 60},
		KeepAlive: true, Measure: 2 * time.Second, RequestTimeout: 300 * time.Millisecond,
		Tags: workload.Tags{TestID: "errors", Target: "httptest", Scenario: "mix", LoadPoint: "1", Repetition: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	// No warmup: every request the server saw is a measured one.
	res, start, end := startK6(t, p, "0", false).wait(t)
	m, err := newTestReader(t).Load(context.Background(), TrialQuery{TestID: "errors", Start: start, End: end, Runners: 1})
	if err != nil {
		t.Fatal(err)
	}
	total := c.count("/ok") + c.count("/teapot") + c.count("/missing") + c.count("/hang")
	want := c.count("/missing") + c.count("/hang")
	t.Logf("server: %v; k6 summary: %d requests, %d errors; PromQL: %d requests, %d errors", c.paths, res.Requests, res.Errors, m.Requests, m.Errors)
	if c.count("/teapot") == 0 || c.count("/missing") == 0 || c.count("/hang") == 0 {
		t.Fatalf("server saw %v: every kind of answer must occur for the test to mean anything", c.paths)
	}
	if res.Requests != total || m.Requests != total {
		t.Errorf("requests: server %d, k6 summary %d, PromQL %d", total, res.Requests, m.Requests)
	}
	if res.Errors != want || res.FailedRequests != want || m.Errors != want {
		t.Errorf("errors: want %d (/missing + /hang), k6 summary %d, PromQL %d", want, res.Errors, m.Errors)
	}
	if m.ErrorRatePPM != want*1_000_000/total {
		t.Errorf("error rate %d ppm, want %d", m.ErrorRatePPM, want*1_000_000/total)
	}
}
