#!/usr/bin/env bash
# Builds Prometheus 3 for the lab from the module hack/lab/prom: Kubernetes service discovery
# only (the tags below leave out the cloud ones, which the lab never uses and which would
# double the build), the version stamped as an official build stamps it. Cached in
# bin/lab/prom/<key>/ (idempotent: warm, a second).
# Usage: hack/lab/prom.sh  -> prints the directory.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/versions.sh"
source "${HERE}/gomod-build.sh"
GOMOD_TAGS="remove_all_sd,enable_kubernetes_sd" \
GOMOD_LDFLAGS="-X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION#v} -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=${PROMETHEUS_MODULE_VERSION}" \
  gomod_build prom prometheus=github.com/prometheus/prometheus/cmd/prometheus
