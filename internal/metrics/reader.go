package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Defaults for Reader.
const (
	// DefaultGrace covers the measured scenario's gracefulStop (the request timeout,
	// 10 s by default) plus k6's last push after it.
	DefaultGrace = time.Minute
	// DefaultScrapeInterval is the kubelet cAdvisor job's usual interval.
	DefaultScrapeInterval = 15 * time.Second
	// lookback is Prometheus's default lookback delta: an instant query sees a series'
	// last sample only if it is this recent.
	lookback = 5 * time.Minute
)

// Reader reads trial figures from one Prometheus.
type Reader struct {
	API promv1.API
	// Grace is how long after the window's end k6's final push may land; k6 series are
	// read at End+Grace. Zero means DefaultGrace; it must stay under the 5 min lookback.
	Grace time.Duration
	// ScrapeInterval is the cAdvisor series' scrape interval: the step of CPU peaks and of
	// memory sampling. Zero means DefaultScrapeInterval.
	ScrapeInterval time.Duration
}

// NewReader returns a Reader for the Prometheus at address (such as http://prometheus:9090).
func NewReader(address string) (*Reader, error) {
	return NewReaderWithHTTPConfig(address, "")
}

// NewReaderWithHTTPConfig is NewReader with the HTTP client of httpConfig, a file in
// Prometheus's own http_config format (github.com/prometheus/common/config:
// authorization, basic_auth, oauth2, tls_config, http_headers, proxy_url, ...) plus
// remote_write's sigv4 section (HTTPClient), so managed and multi-tenant services (Mimir's
// X-Scope-OrgID, VictoriaMetrics behind auth, a TLS proxy, Amazon Managed Prometheus) are
// read as Prometheus itself would reach them. Relative paths in the file are
// relative to its folder; files it names (credentials_file, ca_file, ...) are read at each
// request or connection, so a rotated Secret needs no restart. Empty: a plain client.
func NewReaderWithHTTPConfig(address, httpConfig string) (*Reader, error) {
	hc, err := HTTPClient(httpConfig)
	if err != nil {
		return nil, err
	}
	c, err := api.NewClient(api.Config{Address: address, Client: hc})
	if err != nil {
		return nil, fmt.Errorf("prometheus client for %s: %w", address, err)
	}
	return &Reader{API: promv1.NewAPI(c)}, nil
}

// TrialQuery names one trial's series.
type TrialQuery struct {
	// TestID is the trial's testid tag on every k6 sample.
	TestID string
	// Start and End bound the measured window (warmup excluded).
	Start, End time.Time
	// Runners, when > 0, is how many k6 runners must have written series: a runner whose
	// pushes never arrived would otherwise just shrink the figures.
	Runners int
	// Namespace and PodRegex select the target's pods in cAdvisor series. cAdvisor carries
	// no pod labels, so pods are matched by name (an RE2 pattern, anchored).
	Namespace string
	PodRegex  string
	// RunnerPodRegex selects the k6 runner pods (in Namespace) whose CPU Generator reads;
	// RunnerCPUMillicores is each runner's CPU limit, recorded next to it.
	RunnerPodRegex      string
	RunnerCPUMillicores int64
}

func (q TrialQuery) window() (time.Duration, error) {
	if !q.End.After(q.Start) || q.Start.IsZero() {
		return 0, fmt.Errorf("window: end %v must be after start %v", q.End, q.Start)
	}
	return q.End.Sub(q.Start), nil
}

// Trial reads every figure of one trial: Load's and Resources'.
func (r *Reader) Trial(ctx context.Context, q TrialQuery) (benchv1.Measurement, error) {
	m, err := r.Load(ctx, q)
	if err != nil {
		return m, err
	}
	_, err = r.Resources(ctx, q, &m)
	return m, err
}

// Load reads k6's figures of the measured window: requests, achieved rate, errors,
// dropped iterations and latency percentiles (max: see LatencyMaxQuery).
func (r *Reader) Load(ctx context.Context, q TrialQuery) (benchv1.Measurement, error) {
	var m benchv1.Measurement
	window, err := q.window()
	if err != nil {
		return m, err
	}
	if q.TestID == "" {
		return m, errors.New("testID: must not be empty")
	}
	grace := r.Grace
	if grace == 0 {
		grace = DefaultGrace
	}
	if grace < 0 || grace >= lookback {
		return m, fmt.Errorf("grace: %v must be between 0 and the %v lookback", grace, lookback)
	}
	e := evaluator{r: r, ctx: ctx, at: q.End.Add(grace)}
	requests := e.value(RequestsQuery(q.TestID))
	observed := e.value(LatencyCountQuery(q.TestID))
	if e.err == nil && (requests.absent || requests.v == 0) {
		return m, fmt.Errorf("no k6 requests for testid %q in the measured phase before %v: is k6 remote-writing "+
			"(experimental-prometheus-rw, native histograms, stale markers off) with bench.js's tags?", q.TestID, e.at)
	}
	if e.err == nil && observed.v != requests.v {
		return m, fmt.Errorf("testid %q: %v requests counted but %v in the latency histograms: a push is missing",
			q.TestID, requests.v, observed.v)
	}
	if q.Runners > 0 {
		if n := e.value(RunnersQuery(q.TestID)); e.err == nil && int(n.v) != q.Runners {
			return m, fmt.Errorf("testid %q: %v runners wrote series, want %d", q.TestID, n.v, q.Runners)
		}
	}
	m.Requests = int64(requests.v)
	m.Errors = int64(e.value(ErrorsQuery(q.TestID)).v)
	m.DroppedIterations = int64(e.value(DroppedQuery(q.TestID)).v)
	micros := func(query string) int64 { return int64(math.Round(e.value(query).v * 1e6)) }
	m.P50Micros = micros(LatencyQuantileQuery(q.TestID, 0.5))
	m.P90Micros = micros(LatencyQuantileQuery(q.TestID, 0.9))
	m.P95Micros = micros(LatencyQuantileQuery(q.TestID, 0.95))
	m.P99Micros = micros(LatencyQuantileQuery(q.TestID, 0.99))
	m.P999Micros = micros(LatencyQuantileQuery(q.TestID, 0.999))
	m.MaxMicros = micros(LatencyMaxQuery(q.TestID))
	if e.err != nil {
		return benchv1.Measurement{}, e.err
	}
	m.AchievedMilliRPS = int64(math.Round(float64(m.Requests) * 1000 / window.Seconds()))
	m.ErrorRatePPM = m.Errors * 1_000_000 / m.Requests // as the local mode does from k6's summary
	return m, nil
}

// Resources fills m's target CPU (mean and peak, millicores) and working-set memory (mean
// and peak, bytes) over the window, from cAdvisor series of the target's containers. note,
// when not empty, says the CPU was read over a wider interval than the window (widen).
func (r *Reader) Resources(ctx context.Context, q TrialQuery, m *benchv1.Measurement) (note string, err error) {
	window, err := q.window()
	if err != nil {
		return "", err
	}
	if q.Namespace == "" || q.PodRegex == "" {
		return "", errors.New("namespace and podRegex: both are needed to find the target's cAdvisor series")
	}
	if _, err := regexp.Compile("^(?:" + q.PodRegex + ")$"); err != nil {
		return "", fmt.Errorf("podRegex: %w", err)
	}
	scrape := r.ScrapeInterval
	if scrape == 0 {
		scrape = DefaultScrapeInterval
	}
	if window < 2*scrape {
		return "", fmt.Errorf("window: %v is shorter than two %v scrape intervals; CPU cannot be read", window, scrape)
	}
	e := evaluator{r: r, ctx: ctx, at: q.End}
	of := seriesOf(container)
	cpu, note := cpuMean(&e, container(cpuSeconds, q.Namespace, q.PodRegex), false, q.Start, q.End)
	if e.err == nil && cpu.absent {
		// cAdvisor missed the container's cgroup: its pod's holds the same CPU and memory.
		of = podCgroup
		cpu, note = cpuMean(&e, podCgroup(cpuSeconds, q.Namespace, q.PodRegex), false, q.Start, q.End)
	}
	if e.err == nil && cpu.absent {
		return "", fmt.Errorf("no cAdvisor %s for pods %q in namespace %q between %v and %v: is the kubelet's cAdvisor scraped?",
			cpuSeconds, q.PodRegex, q.Namespace, q.Start, q.End)
	}
	m.CPUMillicores = int64(math.Round(cpu.v * 1000))
	m.CPUPeakMillicores = max(m.CPUMillicores, int64(math.Round(e.value(cpuPeak(of, q.Namespace, q.PodRegex, window, scrape)).v*1000)))
	m.MemoryBytes = int64(math.Round(e.value(memory("avg_over_time", of, q.Namespace, q.PodRegex, window, scrape)).v))
	m.MemoryPeakBytes = int64(math.Round(e.value(memory("max_over_time", of, q.Namespace, q.PodRegex, window, scrape)).v))
	m.CPUPeriods, m.CPUThrottledPeriods = e.throttling(of, q.Namespace, q.PodRegex, window)
	if note != "" {
		note = "target " + note
	}
	return note, e.err
}

// HousekeepingPad is how far beyond a trial's window CPU may be read when the window holds
// fewer than two cAdvisor samples of a container. The kubelet's cAdvisor stamps a
// container's counters at its own housekeeping, every 10-15 s idle and, on a loaded node,
// 17-19 s apart (measured in the lab), so a 30 s window can hold one sample.
const HousekeepingPad = 20 * time.Second

// cpuMean reads the CPU counters sel selects as each series' slope: between its first and
// last sample inside the window, or, for a series with fewer than two samples there, within
// HousekeepingPad of it (a mean over a slightly longer interval, which note says). The
// slopes are summed, or with busiest summed per pod and the highest taken. Not rate(): it
// extrapolates a series' increase to the range's ends only partly and then divides by the
// whole range, so a series whose samples stop short of an end reads low. A runner pod's
// container, gone soon after the window ends, read 35m where its cgroup used 49m.
func cpuMean(e *evaluator, sel string, busiest bool, start, end time.Time) (result, string) {
	wide := *e
	wide.at = end.Add(HousekeepingPad)
	perPod, widened := wide.slopes(sel, end.Sub(start)+2*HousekeepingPad, start, end)
	if e.err = wide.err; e.err != nil || len(perPod) == 0 {
		return result{absent: true}, ""
	}
	v := result{}
	for _, cores := range perPod {
		if busiest {
			v.v = max(v.v, cores)
		} else {
			v.v += cores
		}
	}
	if !widened {
		return v, ""
	}
	return v, fmt.Sprintf("CPU read from the cAdvisor samples within %v of the %v window (fewer than two inside it: the kubelet's housekeeping was slower)",
		HousekeepingPad, end.Sub(start))
}

// Generator fills m.GeneratorCPUMillicores, the busiest runner's mean CPU over the window
// from cAdvisor series of the runner pods (the same series and method as the target's
// CPU), and m.GeneratorCPULimitMillicores, the limit it is judged against. note as in
// Resources.
func (r *Reader) Generator(ctx context.Context, q TrialQuery, m *benchv1.Measurement) (note string, err error) {
	if _, err := q.window(); err != nil {
		return "", err
	}
	if q.Namespace == "" || q.RunnerPodRegex == "" {
		return "", errors.New("namespace and runnerPodRegex: both are needed to find the runners' cAdvisor series")
	}
	if _, err := regexp.Compile("^(?:" + q.RunnerPodRegex + ")$"); err != nil {
		return "", fmt.Errorf("runnerPodRegex: %w", err)
	}
	e := evaluator{r: r, ctx: ctx, at: q.End}
	cpu, note := cpuMean(&e, container(cpuSeconds, q.Namespace, q.RunnerPodRegex), true, q.Start, q.End)
	if e.err == nil && cpu.absent {
		return "", fmt.Errorf("no cAdvisor %s for runner pods %q in namespace %q between %v and %v",
			cpuSeconds, q.RunnerPodRegex, q.Namespace, q.Start, q.End)
	}
	m.GeneratorCPUMillicores = int64(math.Round(cpu.v * 1000))
	m.GeneratorCPULimitMillicores = q.RunnerCPUMillicores
	if note != "" {
		note = "runner " + note
	}
	return note, e.err
}

// throttling is the CFS periods and throttled periods of the target's containers over the
// window, or over the window padded as widen pads it when cAdvisor's samples are sparse
// (both over the same interval, so their ratio holds). Zero when the container has no CPU
// quota: cAdvisor then exports no CFS series.
func (e *evaluator) throttling(of seriesOf, namespace, podRegex string, window time.Duration) (periods, throttled int64) {
	read := func(ev *evaluator, w time.Duration) (result, result) {
		return ev.value(increaseOf(cfsPeriods, of, namespace, podRegex, w)), ev.value(increaseOf(cfsThrottl, of, namespace, podRegex, w))
	}
	p, th := read(e, window)
	if e.err == nil && p.absent {
		wide := *e
		wide.at = e.at.Add(HousekeepingPad)
		p, th = read(&wide, window+2*HousekeepingPad)
		e.err = wide.err
	}
	if e.err != nil || p.absent {
		return 0, 0
	}
	return int64(math.Round(p.v)), int64(math.Round(th.v))
}

// slopes reads the raw samples of the counters sel selects over rng ending at e.at and
// gives, per pod, the sum of its series' slopes (units per second): between a series' first
// and last sample within [start, end], or, with fewer than two there, between the nearest
// samples around them in the range (widened says one did). A series with fewer than two
// samples, or whose counter went back (its container restarted), gives none.
func (e *evaluator) slopes(sel string, rng time.Duration, start, end time.Time) (perPod map[string]float64, widened bool) {
	query := sel + "[" + promDuration(rng) + "]"
	val := e.query(query)
	if e.err != nil {
		return nil, false
	}
	m, ok := val.(model.Matrix)
	if !ok {
		e.err = fmt.Errorf("prometheus query %s: got a %s, want a matrix", query, val.Type())
		return nil, false
	}
	from, to := model.TimeFromUnixNano(start.UnixNano()), model.TimeFromUnixNano(end.UnixNano())
	perPod = map[string]float64{}
	for _, s := range m {
		inside, near := splitWindow(s.Values, from, to)
		ps := inside
		if len(inside) < 2 {
			ps = near
		}
		if len(ps) < 2 {
			continue
		}
		first, last := ps[0], ps[len(ps)-1]
		dt, dv := last.Timestamp.Sub(first.Timestamp).Seconds(), float64(last.Value-first.Value)
		if dt <= 0 || dv < 0 || math.IsNaN(dv) {
			continue
		}
		widened = widened || len(inside) < 2
		perPod[string(s.Metric["pod"])] += dv / dt
	}
	return perPod, widened
}

// splitWindow splits time-ordered samples: inside are those within [from, to]; near adds the
// nearest one on each side, the least time outside the window, where the load may not have
// run (a runner waits idle for its starter before the load, a target idles after it).
func splitWindow(ps []model.SamplePair, from, to model.Time) (inside, near []model.SamplePair) {
	lo := slices.IndexFunc(ps, func(p model.SamplePair) bool { return p.Timestamp >= from })
	if lo < 0 {
		lo = len(ps)
	}
	hi := slices.IndexFunc(ps, func(p model.SamplePair) bool { return p.Timestamp > to })
	if hi < 0 {
		hi = len(ps)
	}
	return ps[lo:hi], ps[max(lo-1, 0):min(hi+1, len(ps))]
}

// evaluator runs instant queries at one time and keeps the first error, so a sequence of
// queries reads straight and fails once.
type evaluator struct {
	r   *Reader
	ctx context.Context
	at  time.Time
	err error
}

// result is one query's single number; absent when the query matched no series.
type result struct {
	v      float64
	absent bool
}

// query runs one instant query at e.at; nil, with e.err set, when it fails.
func (e *evaluator) query(query string) model.Value {
	if e.err != nil {
		return nil
	}
	val, warnings, _, err := e.r.API.Query(e.ctx, query, e.at)
	if err != nil {
		e.err = fmt.Errorf("prometheus query %s: %w", query, err)
		return nil
	}
	// A warning means partial or doubtful data: a measurement must not rest on it.
	if len(warnings) > 0 {
		e.err = fmt.Errorf("prometheus query %s: warnings: %s", query, strings.Join(warnings, "; "))
		return nil
	}
	return val
}

func (e *evaluator) value(query string) result {
	val := e.query(query)
	if e.err != nil {
		return result{absent: true}
	}
	vec, ok := val.(model.Vector)
	if !ok {
		e.err = fmt.Errorf("prometheus query %s: got a %s, want a vector", query, val.Type())
		return result{absent: true}
	}
	switch len(vec) {
	case 0:
		return result{absent: true}
	case 1:
		v := float64(vec[0].Value)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			e.err = fmt.Errorf("prometheus query %s: got %v", query, v)
			return result{absent: true}
		}
		return result{v: v}
	default:
		e.err = fmt.Errorf("prometheus query %s: got %d series, want one", query, len(vec))
		return result{absent: true}
	}
}
