#!/usr/bin/env bash
# Builds CoreDNS and the operators the lab runs (CloudNativePG, k6-operator,
# prometheus-operator and its config reloader) from the module hack/lab/ops, in one go build:
# in one module graph their common dependencies (client-go, controller-runtime, the
# Prometheus libraries) compile once, not once per operator. Cached in bin/lab/ops/<key>/,
# keyed by the module's files (idempotent: warm, a second).
# Usage: hack/lab/ops.sh  -> prints the directory.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MOD="${ROOT}/hack/lab/ops"
key="$(cat "${MOD}/go.mod" "${MOD}/go.sum" "${MOD}"/*.go "${MOD}"/*/*.go | sha256sum | cut -c1-12)"
OUT="${ROOT}/bin/lab/ops/${key}"
declare -A BINS=(
  [coredns]=./coredns
  [cnpg-manager]=github.com/cloudnative-pg/cloudnative-pg/cmd/manager
  [k6-operator]=github.com/grafana/k6-operator
  [prometheus-operator]=github.com/prometheus-operator/prometheus-operator/cmd/operator
  [prometheus-config-reloader]=github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader
)
if [[ ! -f "${OUT}/.complete" ]]; then
  rm -rf "${OUT}" && mkdir -p "${OUT}"
  start=$(date +%s)
  # Static, as their images ship them; the same flags as every other Go build here (see
  # the Makefile), so packages shared with them come from the build cache.
  (cd "${MOD}" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "${OUT}/.build/" "${BINS[@]}") >&2
  # go build -o DIR/ names each binary after its package ("manager", "operator").
  for name in "${!BINS[@]}"; do
    mv "${OUT}/.build/$(basename "${BINS[${name}]}")" "${OUT}/${name}"
  done
  rm -rf "${OUT}/.build"
  touch "${OUT}/.complete"
  echo "hack/lab/ops.sh: built ${!BINS[*]} in $(( $(date +%s) - start )) s" >&2
fi
echo "${OUT}"
