// Package metrics reads a trial's figures from Prometheus: k6's remote-written request
// counters and native latency histograms, and cAdvisor's CPU and memory series of the
// target's pods. Every PromQL expression Gauntlet runs is built in this file.
//
// k6 series are read as their LAST cumulative value (docs/measurement.md, "Reading k6 in
// Prometheus"): the measured phase has series of its own (phase="measure"), so their final
// value is the whole window, exactly. rate/increase over a window would drop the first push and
// extrapolate (+52% at p99, measured).
package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Series names as k6 1.8.1's experimental-prometheus-rw output writes them (prefix k6_,
// counters get _total, trends as native histograms get their base unit) and as cAdvisor
// exports them through the kubelet.
const (
	k6Requests = "k6_http_reqs_total"
	k6Duration = "k6_http_req_duration_seconds"
	k6Dropped  = "k6_dropped_iterations_total"
	cpuSeconds = "container_cpu_usage_seconds_total"
	workingSet = "container_memory_working_set_bytes"
	cfsPeriods = "container_cpu_cfs_periods_total"
	cfsThrottl = "container_cpu_cfs_throttled_periods_total"
)

// selector renders metric{k="v",...} with every value quoted; matchers are pairs of
// "label op" and value, such as "pod=~", "go-.*".
func selector(metric string, matchers ...string) string {
	var b strings.Builder
	b.WriteString(metric)
	b.WriteByte('{')
	for i := 0; i+1 < len(matchers); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		// Go's quoting is valid PromQL: a test id or pod pattern cannot break out.
		b.WriteString(matchers[i] + strconv.Quote(matchers[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

// measured selects a k6 metric's series of the measured phase of one trial. The phase tag
// comes from bench.js's scenario tags; every runner and endpoint has series of its own.
func measured(metric, testID string, more ...string) string {
	return selector(metric, append([]string{"testid=", testID, "phase=", "measure"}, more...)...)
}

// RequestsQuery is the number of requests the measured phase made, over all runners.
func RequestsQuery(testID string) string {
	return "sum(" + measured(k6Requests, testID) + ")"
}

// ErrorsQuery is the number of failed requests: k6 tags each request with
// expected_response="false" exactly when http_req_failed is true (bench.js sets the
// expected status per request). k6 writes http_req_failed itself only as a rate.
func ErrorsQuery(testID string) string {
	return "sum(" + measured(k6Requests, testID, "expected_response=", "false") + ")"
}

// RunnersQuery is how many k6 runners wrote series for the measured phase.
func RunnersQuery(testID string) string {
	return "count(count by (runner) (" + measured(k6Requests, testID) + "))"
}

// BucketRatio is the ratio of a native histogram bucket's upper edge to its lower one at
// k6's factor 1.1 (schema 3): 2^(1/8), 9.05%. A quantile read from the histogram lies in the
// same bucket as the exact one, so within this ratio of it.
var BucketRatio = math.Pow(2, 1.0/8)

// LatencyQuantileQuery is quantile q (0.99 for p99) of http_req_duration in seconds: the
// native histograms of every series (runners, endpoints, statuses) summed, then read.
// Native histograms are exponential buckets (factor 1.1, schema 3: each bucket spans
// 9.05%); Prometheus interpolates inside the bucket holding the quantile.
func LatencyQuantileQuery(testID string, q float64) string {
	return "histogram_quantile(" + strconv.FormatFloat(q, 'g', -1, 64) + ", sum(" + measured(k6Duration, testID) + "))"
}

// LatencyMaxQuery bounds the slowest request from above: k6 writes no max with native
// histograms, and quantile 1 is the upper edge of the highest non-empty bucket, at most
// 9.05% above the true max.
func LatencyMaxQuery(testID string) string { return LatencyQuantileQuery(testID, 1) }

// LatencyCountQuery is the number of observations in the summed histogram; it must equal
// RequestsQuery's answer, or a push is missing.
func LatencyCountQuery(testID string) string {
	return "histogram_count(sum(" + measured(k6Duration, testID) + "))"
}

// DroppedQuery is the measured phase's dropped iterations. dropped_iterations carries only
// k6's own scenario tag, not the scenario's phase tag; no series means none were dropped.
func DroppedQuery(testID string) string {
	return "sum(" + selector(k6Dropped, "testid=", testID, "scenario=", "measure") + ")"
}

// seriesOf selects a metric's cAdvisor series for pods matching podRegex in namespace.
type seriesOf func(metric, namespace, podRegex string) string

// container selects the target's containers. cAdvisor also reports a pod-level cgroup
// (container="") and, with some runtimes, the pause container ("POD"): both would count
// the same CPU and memory again.
func container(metric, namespace, podRegex string) string {
	return selector(metric, "namespace=", namespace, "pod=~", podRegex, "container!=", "", "container!=", "POD")
}

// podCgroup selects the pod-level cgroup (no container, no image): the target's container
// plus the idle pause process. cAdvisor reports it even when it missed a container's own
// cgroup, which the kubelet's cAdvisor does now and then for containers created under load.
func podCgroup(metric, namespace, podRegex string) string {
	return selector(metric, "namespace=", namespace, "pod=~", podRegex, "container=", "", "image=", "")
}

// promDuration renders a duration as whole milliseconds, always valid PromQL.
func promDuration(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

// CPUPeakQuery is the highest CPU use in cores over one scrape interval within the window:
// irate of the last two scrapes, summed over pods, at each scrape step. The first step
// starts one interval into the window so no pair straddles the window's start.
func CPUPeakQuery(namespace, podRegex string, window, scrape time.Duration) string {
	return cpuPeak(container, namespace, podRegex, window, scrape)
}

func cpuPeak(of seriesOf, namespace, podRegex string, window, scrape time.Duration) string {
	return "max_over_time(sum(irate(" + of(cpuSeconds, namespace, podRegex) + "[" + promDuration(3*scrape) + "]))[" +
		promDuration(window-scrape) + ":" + promDuration(scrape) + "])"
}

// MemoryMeanQuery is the mean working set in bytes, summed over the target's containers,
// sampled at every scrape step of the window (both ends included).
func MemoryMeanQuery(namespace, podRegex string, window, scrape time.Duration) string {
	return memory("avg_over_time", container, namespace, podRegex, window, scrape)
}

// MemoryPeakQuery is the highest summed working set at any scrape step of the window.
func MemoryPeakQuery(namespace, podRegex string, window, scrape time.Duration) string {
	return memory("max_over_time", container, namespace, podRegex, window, scrape)
}

func memory(over string, of seriesOf, namespace, podRegex string, window, scrape time.Duration) string {
	return over + "(sum(" + of(workingSet, namespace, podRegex) + ")[" + promDuration(window) + ":" + promDuration(scrape) + "])"
}

// increaseOf is a counter's increase over the window, summed over the target's series.
func increaseOf(metric string, of seriesOf, namespace, podRegex string, window time.Duration) string {
	return "sum(increase(" + of(metric, namespace, podRegex) + "[" + promDuration(window) + "]))"
}
