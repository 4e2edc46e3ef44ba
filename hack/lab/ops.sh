#!/usr/bin/env bash
# Builds CoreDNS and the operators the lab runs (CloudNativePG, k6-operator,
# prometheus-operator and its config reloader) from the module hack/lab/ops, in one go build:
# in one module graph their common dependencies (client-go, controller-runtime, the
# Prometheus libraries) compile once, not once per operator. Cached in bin/lab/ops/<key>/,
# keyed by the module's files (idempotent: warm, a second).
# Usage: hack/lab/ops.sh  -> prints the directory.
set -euo pipefail
source "$(dirname "$0")/gomod-build.sh"
gomod_build ops \
  coredns=./coredns \
  cnpg-manager=github.com/cloudnative-pg/cloudnative-pg/cmd/manager \
  k6-operator=github.com/grafana/k6-operator \
  prometheus-operator=github.com/prometheus-operator/prometheus-operator/cmd/operator \
  prometheus-config-reloader=github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader
