package main

import "testing"

// --metrics-cert-path serves the mounted kubernetes.io/tls Secret's files; empty keeps
// controller-runtime's self-signed certificate.
func TestWithMetricsCert(t *testing.T) {
	o := WithMetricsCert(MetricsOptions(":8443", true), "/etc/gauntlet/metrics-certs")
	if o.CertDir != "/etc/gauntlet/metrics-certs" || o.CertName != "tls.crt" || o.KeyName != "tls.key" || !o.SecureServing {
		t.Errorf("options %+v, want the Secret's tls.crt and tls.key served over HTTPS", o)
	}
	if o := WithMetricsCert(MetricsOptions(":8443", true), ""); o.CertDir != "" || o.CertName != "" {
		t.Errorf("no path: options %+v, want controller-runtime's own certificate", o)
	}
}
