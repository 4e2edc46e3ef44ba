package k6

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"
)

// submetrics are the names of one target's measured submetrics, as loadgen/bench.js
// declares their thresholds. Only these are read: they hold the measured window alone
// (warmup samples carry phase=warmup).
type submetrics struct {
	duration, reqs, failed string
	// dropped_iterations carries only the k6 scenario tag, not the scenario's tags.
	dropped string
}

// armMetrics are the submetrics of arm k of a duet's plan, or of a plan of one target
// (duet false).
func armMetrics(k int, duet bool) submetrics {
	if !duet {
		return submetrics{"http_req_duration{phase:measure}", "http_reqs{phase:measure}",
			"http_req_failed{phase:measure}", "dropped_iterations{scenario:measure}"}
	}
	// One scenario loads every arm, so its dropped iterations are every arm's.
	tag := fmt.Sprintf("{phase:measure,arm:%d}", k)
	return submetrics{"http_req_duration" + tag, "http_reqs" + tag, "http_req_failed" + tag,
		"dropped_iterations{scenario:measure}"}
}

// TrendStats is the --summary-trend-stats list; the script's options carry the same.
const TrendStats = "avg,min,med,max,p(50),p(90),p(95),p(99),p(99.9)"

// Latency holds percentiles of the measured window, in microseconds (k6 reports
// milliseconds as floats; k6's trend percentiles are exact, over every sample).
type Latency struct {
	P50, P90, P95, P99, P999, Max int64
}

// Result is what one k6 run measured in its measured window.
type Result struct {
	Requests int64
	// Measure is the measured window; AchievedRate = Requests / Measure in requests per
	// second. k6's own "rate" of a submetric divides by the whole test, warmup included.
	Measure      time.Duration
	AchievedRate float64
	Latency      Latency
	// FailedRequests: responses with a status other than the expected one (bench.js gives
	// every request its expected status as k6's responseCallback), timeouts and connection
	// errors: http_req_failed, the same samples as Prometheus's expected_response="false".
	FailedRequests int64
	// Errors is FailedRequests: each failed request counted once.
	Errors    int64
	ErrorRate float64
	// DroppedIterations: arrivals k6 could not start for want of a free VU (open model).
	DroppedIterations int64
	// GeneratorCores is k6's mean CPU use during the measured window, in cores; -1 when
	// it could not be sampled (for example, k6 ended before the window did).
	GeneratorCores float64
}

type summaryExport struct {
	Metrics map[string]map[string]any `json:"metrics"`
}

// ParseSummary reads a --summary-export file written for a plan of one target with the
// given measured window.
func ParseSummary(path string, measure time.Duration) (Result, error) {
	res, err := parseSummaryFile(path, measure, 0)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// parseSummaryFile reads the figures of each of a duet's arms (arms > 1) or of a plan's
// one target.
func parseSummaryFile(path string, measure time.Duration, arms int) ([]Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("k6 summary export: %w", err)
	}
	if arms < 2 {
		r, err := parseSummary(data, measure, armMetrics(0, false))
		return []Result{r}, err
	}
	out := make([]Result, arms)
	for k := range out {
		if out[k], err = parseSummary(data, measure, armMetrics(k, true)); err != nil {
			return nil, fmt.Errorf("arm %d: %w", k, err)
		}
	}
	return out, nil
}

func parseSummary(data []byte, measure time.Duration, m submetrics) (Result, error) {
	if measure <= 0 {
		return Result{}, fmt.Errorf("measure: must be > 0, got %v", measure)
	}
	var s summaryExport
	if err := json.Unmarshal(data, &s); err != nil {
		return Result{}, fmt.Errorf("k6 summary export: %w", err)
	}
	r := Result{Measure: measure, GeneratorCores: -1}
	var err error
	get := func(metric, field string) float64 {
		if err != nil {
			return 0
		}
		var v float64
		v, err = s.number(metric, field)
		return v
	}
	r.Requests = int64(get(m.reqs, "count"))
	if r.Requests == 0 && err == nil {
		return Result{}, fmt.Errorf("k6 summary export: no request was made in the measured window")
	}
	us := func(field string) int64 { return int64(math.Round(get(m.duration, field) * 1000)) }
	r.Latency = Latency{P50: us("p(50)"), P90: us("p(90)"), P95: us("p(95)"), P99: us("p(99)"),
		P999: us("p(99.9)"), Max: us("max")}
	// http_req_failed is true for a failure, so its passes are the failed requests.
	r.FailedRequests = int64(get(m.failed, "passes"))
	r.DroppedIterations = int64(get(m.dropped, "count"))
	if err != nil {
		return Result{}, err
	}
	r.AchievedRate = float64(r.Requests) / measure.Seconds()
	r.Errors = r.FailedRequests
	r.ErrorRate = float64(r.Errors) / float64(r.Requests)
	return r, nil
}

func (s summaryExport) number(metric, field string) (float64, error) {
	m, ok := s.Metrics[metric]
	if !ok {
		return 0, fmt.Errorf("k6 summary export: metric %s is missing (is loadgen/bench.js's threshold on it gone?)", metric)
	}
	v, ok := m[field].(float64)
	if !ok {
		return 0, fmt.Errorf("k6 summary export: %s has no numeric %q", metric, field)
	}
	return v, nil
}
