package k6

import (
	"strings"
	"testing"
	"time"
)

// testdata/summary-export.json is a real k6 1.8.1 export: 200/s, 1 s warmup, 2 s
// measured window, every tenth request answered 500 while 200 was expected.
func TestParseSummaryReadsTheMeasuredWindow(t *testing.T) {
	r, err := ParseSummary("testdata/summary-export.json", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Requests: 401, Measure: 2 * time.Second, AchievedRate: 200.5,
		Latency:        Latency{P50: 458, P90: 686, P95: 790, P99: 1814, P999: 4743, Max: 6322},
		FailedRequests: 40, Errors: 40, ErrorRate: 40.0 / 401,
		GeneratorCores: -1,
	}
	if r != want {
		t.Errorf("result\n got %+v\nwant %+v", r, want)
	}
	// The trap: k6's own rate divides by the whole test (3 s), reporting 133.5/s.
	if r.AchievedRate < 200 {
		t.Errorf("achieved rate %v uses the whole test's duration", r.AchievedRate)
	}
}

func TestParseSummaryErrors(t *testing.T) {
	cases := []struct{ name, json, want string }{
		{"not json", `{`, "k6 summary export"},
		{"no submetric", `{"metrics":{"http_reqs":{"count":5}}}`, "http_reqs{phase:measure} is missing"},
		{"no requests", `{"metrics":{"http_reqs{phase:measure}":{"count":0}}}`, "no request was made"},
		{"bad field", `{"metrics":{"http_reqs{phase:measure}":{"count":"x"}}}`, `no numeric "count"`},
		{"no latency", `{"metrics":{"http_reqs{phase:measure}":{"count":3}}}`, "http_req_duration{phase:measure} is missing"},
	}
	for _, c := range cases {
		_, err := parseSummary([]byte(c.json), time.Second, armMetrics(0, false))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := parseSummary([]byte(`{}`), 0, armMetrics(0, false)); err == nil || !strings.HasPrefix(err.Error(), "measure:") {
		t.Errorf("zero window: %v", err)
	}
	if _, err := ParseSummary("testdata/absent.json", time.Second); err == nil {
		t.Error("a missing export should be an error")
	}
}

// Errors are http_req_failed's passes: the script gives each request its expected status,
// so a wrong status, a timeout and a refused connection all count, each once.
func TestErrorsAreTheFailedRequests(t *testing.T) {
	data := `{"metrics":{
	 "http_reqs{phase:measure}":{"count":1000},
	 "http_req_duration{phase:measure}":{"p(50)":1,"p(90)":2,"p(95)":3,"p(99)":4,"p(99.9)":5,"max":6.0004},
	 "http_req_failed{phase:measure}":{"passes":9,"fails":991},
	 "dropped_iterations{scenario:measure}":{"count":12}}}`
	r, err := parseSummary([]byte(data), 4*time.Second, armMetrics(0, false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 9 || r.ErrorRate != 0.009 || r.FailedRequests != 9 {
		t.Errorf("errors %+v", r)
	}
	if r.DroppedIterations != 12 || r.AchievedRate != 250 || r.Latency.Max != 6000 || r.Latency.P999 != 5000 {
		t.Errorf("result %+v", r)
	}
}
