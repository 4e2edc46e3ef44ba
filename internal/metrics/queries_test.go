package metrics

import (
	"testing"
	"time"
)

// The exact PromQL, so a reviewer sees what reaches Prometheus; the tests against a real
// Prometheus show what it answers.
func TestQueries(t *testing.T) {
	const ns, pods = "bench", "gauntlet-go-.*"
	w, s := 5*time.Minute, 15*time.Second
	for _, tc := range []struct{ got, want string }{
		{RequestsQuery("t1"), `sum(k6_http_reqs_total{testid="t1",phase="measure"})`},
		{ErrorsQuery("t1"), `sum(k6_http_reqs_total{testid="t1",phase="measure",expected_response="false"})`},
		{RunnersQuery("t1"), `count(count by (runner) (k6_http_reqs_total{testid="t1",phase="measure"}))`},
		{LatencyQuantileQuery("t1", 0.999), `histogram_quantile(0.999, sum(k6_http_req_duration_seconds{testid="t1",phase="measure"}))`},
		{LatencyMaxQuery("t1"), `histogram_quantile(1, sum(k6_http_req_duration_seconds{testid="t1",phase="measure"}))`},
		{LatencyCountQuery("t1"), `histogram_count(sum(k6_http_req_duration_seconds{testid="t1",phase="measure"}))`},
		{DroppedQuery("t1"), `sum(k6_dropped_iterations_total{testid="t1",scenario="measure"})`},
		{CPUPeakQuery(ns, pods, w, s),
			`max_over_time(sum(irate(container_cpu_usage_seconds_total{namespace="bench",pod=~"gauntlet-go-.*",container!="",container!="POD"}[45000ms]))[285000ms:15000ms])`},
		{MemoryMeanQuery(ns, pods, w, s),
			`avg_over_time(sum(container_memory_working_set_bytes{namespace="bench",pod=~"gauntlet-go-.*",container!="",container!="POD"})[300000ms:15000ms])`},
		{MemoryPeakQuery(ns, pods, w, s),
			`max_over_time(sum(container_memory_working_set_bytes{namespace="bench",pod=~"gauntlet-go-.*",container!="",container!="POD"})[300000ms:15000ms])`},
		// A value cannot leave its quotes.
		{RequestsQuery(`x"} or vector(1) #\`), `sum(k6_http_reqs_total{testid="x\"} or vector(1) #\\",phase="measure"})`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}
