package opmetrics

import "github.com/prometheus/client_golang/prometheus"

// MetricPreflightOK is the manager's preflight (internal/preflight), per check; the chart's
// PrometheusRule alerts on it.
const MetricPreflightOK = "gauntlet_preflight_ok"

// NewPreflightGauge is the preflight's gauge: 0 while a check finds something missing that
// runs need, 1 otherwise (warnings included: they are Events and log lines).
func NewPreflightGauge() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricPreflightOK,
		Help: "0 while the manager's preflight check finds something runs need missing (k6-operator's CRD, the Prometheus, its remote-write receiver, native histograms, cAdvisor series), 1 when not.",
	}, []string{"check"})
}
