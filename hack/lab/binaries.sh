#!/usr/bin/env bash
# Every binary the lab runs that is not a Debian package, built from Go modules and cached
# under bin/ (idempotent; the cold cost of each is in the closing note of issue 8).
# Usage: hack/lab/binaries.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/versions.sh"
"${HERE}/../envtest-binaries.sh" >/dev/null
"${HERE}/k8s.sh" >/dev/null
"${HERE}/gobuild.sh" coredns github.com/coredns/coredns "${COREDNS_VERSION}" github.com/coredns/coredns >/dev/null
"${HERE}/gobuild.sh" cnpg-manager github.com/cloudnative-pg/cloudnative-pg "${CNPG_VERSION}" \
  github.com/cloudnative-pg/cloudnative-pg/cmd/manager >/dev/null
"${HERE}/gobuild.sh" k6-operator github.com/grafana/k6-operator "${K6_OPERATOR_VERSION}" github.com/grafana/k6-operator >/dev/null
"${HERE}/gobuild.sh" prometheus-operator github.com/prometheus-operator/prometheus-operator \
  "${PROMETHEUS_OPERATOR_VERSION}" github.com/prometheus-operator/prometheus-operator/cmd/operator >/dev/null
"${HERE}/gobuild.sh" prometheus-config-reloader github.com/prometheus-operator/prometheus-operator \
  "${PROMETHEUS_OPERATOR_VERSION}" github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader >/dev/null
