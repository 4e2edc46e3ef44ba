//go:build tools

// Prometheus 3, the monitoring users install, built from its module for the lab's
// prometheus-operator to run (hack/lab/prom.sh). A module of its own: its Kubernetes
// libraries are newer than those the lab's operators build with.
package prom

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
)
