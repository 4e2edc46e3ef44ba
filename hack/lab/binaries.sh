#!/usr/bin/env bash
# Every binary the lab runs that is not a Debian package, built from Go modules and cached
# under bin/ (idempotent: warm, a second).
# Usage: hack/lab/binaries.sh [core|operators|all]   (default all)
#   core:      kube-apiserver and etcd (envtest's), kubelet, kube-controller-manager,
#              kube-scheduler, kube-proxy, kubectl, CoreDNS: what make lab-up needs
#   operators: CloudNativePG, k6-operator, prometheus-operator and its config reloader
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/versions.sh"
what="${1:-all}"
if [[ "${what}" == core || "${what}" == all ]]; then
  "${HERE}/../envtest-binaries.sh" >/dev/null
  "${HERE}/k8s.sh" >/dev/null
  "${HERE}/gobuild.sh" coredns github.com/coredns/coredns "${COREDNS_VERSION}" github.com/coredns/coredns >/dev/null
fi
if [[ "${what}" == operators || "${what}" == all ]]; then
  "${HERE}/gobuild.sh" cnpg-manager github.com/cloudnative-pg/cloudnative-pg "${CNPG_VERSION}" \
    github.com/cloudnative-pg/cloudnative-pg/cmd/manager >/dev/null
  "${HERE}/gobuild.sh" k6-operator github.com/grafana/k6-operator "${K6_OPERATOR_VERSION}" github.com/grafana/k6-operator >/dev/null
  "${HERE}/gobuild.sh" prometheus-operator github.com/prometheus-operator/prometheus-operator \
    "${PROMETHEUS_OPERATOR_VERSION}" github.com/prometheus-operator/prometheus-operator/cmd/operator >/dev/null
  "${HERE}/gobuild.sh" prometheus-config-reloader github.com/prometheus-operator/prometheus-operator \
    "${PROMETHEUS_OPERATOR_VERSION}" github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader >/dev/null
fi
