//go:build tools

// The operators the lab runs, built from their own modules' main packages. They share one
// module graph here so that their common dependencies (client-go, controller-runtime, the
// Prometheus libraries) compile once instead of once per operator.
package ops

import (
	_ "github.com/cloudnative-pg/cloudnative-pg/cmd/manager"
	_ "github.com/grafana/k6-operator"
	_ "github.com/prometheus-operator/prometheus-operator/cmd/operator"
	_ "github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader"
)
