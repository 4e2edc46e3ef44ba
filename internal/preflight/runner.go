package preflight

import (
	"context"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// Event reasons on the manager's Pod.
const (
	ReasonFailed    = "PreflightFailed"
	ReasonWarning   = "PreflightWarning"
	ReasonRecovered = "PreflightRecovered"
)

// Defaults of Runner.
const (
	DefaultInterval = 5 * time.Minute
	DefaultTimeout  = 30 * time.Second
)

// Runner is the manager's preflight, a controller-runtime Runnable: the CRD checks under
// ForManager and the Prometheus checks against the manager's own client, at start and every
// Interval. It reports a check's change of status (first failure, recovery) as an Event on
// the manager's Pod and a log line, and every status on Gauge. It never fails the manager
// nor its readiness: an install waiting on helm --wait must not hang on a missing operator.
// The CPU manager check is left to `gauntlet check`: it needs nodes/proxy, which the
// manager is not granted.
type Runner struct {
	Config                        *rest.Config // the API server, for discovery
	PrometheusURL, RemoteWriteURL string       // empty PrometheusURL: no Prometheus checks
	HTTPClient                    *http.Client // the manager's Prometheus client (--prometheus-http-config)
	Recorder                      events.EventRecorder
	Pod                           *corev1.Pod // the manager's own Pod; nil: no Events (out of a cluster)
	Gauge                         *prometheus.GaugeVec
	Log                           logr.Logger
	Interval                      time.Duration // zero: DefaultInterval
	Timeout                       time.Duration // each group of checks' deadline; zero: DefaultTimeout

	last map[string]string // check -> status of the round before
}

// NeedLeaderElection is false: every replica checks, and reports on its own Pod.
func (r *Runner) NeedLeaderElection() bool { return false }

// Start checks now and then every Interval until ctx ends.
func (r *Runner) Start(ctx context.Context) error {
	interval := r.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r.Check(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Check runs one round, reports it and returns its results.
func (r *Runner) Check(ctx context.Context) []Result {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var results []Result
	cfg := rest.CopyConfig(r.Config)
	cfg.Timeout = timeout
	// A new client each round: a cached discovery would not see a CRD installed since.
	if d, err := discovery.NewDiscoveryClientForConfig(cfg); err != nil {
		results = append(results, Result{"crds", Warn, err.Error()})
	} else {
		results = append(results, CheckCRDs(d, ForManager)...)
	}
	if r.PrometheusURL != "" {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		results = append(results, Prometheus(pctx, r.HTTPClient, r.PrometheusURL, r.RemoteWriteURL)...)
		cancel()
	}
	if ctx.Err() != nil { // stopping: a cancelled probe is no finding
		return results
	}
	r.report(results)
	return results
}

// report sets the gauge, and on a change of status records an Event and a log line.
func (r *Runner) report(results []Result) {
	first := r.last == nil
	if first {
		r.last = map[string]string{}
	}
	failing := 0
	for _, res := range results {
		if res.Status == Skipped {
			r.Gauge.DeleteLabelValues(res.Check)
			continue
		}
		ok := 1.0
		if res.Status == Missing {
			ok = 0
			failing++
		}
		r.Gauge.WithLabelValues(res.Check).Set(ok)
		before, seen := r.last[res.Check]
		r.last[res.Check] = res.Status
		if before == res.Status || (!seen && res.Status == OK) {
			continue
		}
		log := r.Log.WithValues("check", res.Check, "status", res.Status, "detail", res.Detail)
		switch res.Status {
		case Missing:
			log.Info("preflight: missing; runs will wait or fail until it is fixed")
			r.event(corev1.EventTypeWarning, ReasonFailed, res)
		case Warn:
			log.Info("preflight: warning")
			r.event(corev1.EventTypeWarning, ReasonWarning, res)
		case OK:
			log.Info("preflight: recovered")
			r.event(corev1.EventTypeNormal, ReasonRecovered, res)
		}
	}
	if first {
		r.Log.Info("preflight done", "checks", len(results), "missing", failing)
	}
}

func (r *Runner) event(eventType, reason string, res Result) {
	if r.Pod == nil || r.Recorder == nil {
		return
	}
	r.Recorder.Eventf(r.Pod, nil, eventType, reason, "Preflight", "%s: %s: %s", res.Check, res.Status, res.Detail)
}
