# shellcheck shell=bash disable=SC2034  # the scripts that source this file read its variables
# Versions of what the lab builds (sourced by hack/lab/*.sh). The operators' and CoreDNS's
# come from hack/lab/ops/go.mod, the one place they are pinned.
KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
_ops_mod="$(dirname "${BASH_SOURCE[0]}")/ops/go.mod"
_ops_version() { awk -v m="$1" '$1 == m {print $2}' "${_ops_mod}"; }
COREDNS_VERSION="$(_ops_version github.com/coredns/coredns)"
CNPG_VERSION="$(_ops_version github.com/cloudnative-pg/cloudnative-pg)"
K6_OPERATOR_VERSION="$(_ops_version github.com/grafana/k6-operator)"
PROMETHEUS_OPERATOR_VERSION="$(_ops_version github.com/prometheus-operator/prometheus-operator)"
# Prometheus 3 (hack/lab/prom/go.mod): the module v0.3XX.Y is Prometheus 3.XX.Y.
PROMETHEUS_MODULE_VERSION="$(awk '{for (i = 1; i < NF; i++) if ($i == "github.com/prometheus/prometheus") {print $(i + 1); exit}}' "$(dirname "${BASH_SOURCE[0]}")/prom/go.mod")"
PROMETHEUS_VERSION="$(echo "${PROMETHEUS_MODULE_VERSION}" | awk -F. '{printf "v%d.%d.%s", $2 / 100, $2 % 100, $3}')"
# Flux's controllers (the GitOps pipeline): pinned in hack/lab/flux/go.mod.
_flux_mod="$(dirname "${BASH_SOURCE[0]}")/flux/go.mod"
SOURCE_CONTROLLER_VERSION="$(awk '$1 == "github.com/fluxcd/source-controller" {print $2}' "${_flux_mod}")"
KUSTOMIZE_CONTROLLER_VERSION="$(awk '$1 == "github.com/fluxcd/kustomize-controller" {print $2}' "${_flux_mod}")"
