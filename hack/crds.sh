#!/usr/bin/env bash
# Puts the CRDs of the operators Gauntlet drives into bin/crds/<operator>/, for envtest:
#   bin/crds/cloudnative-pg       from github.com/cloudnative-pg/cloudnative-pg (config/crd/bases)
#   bin/crds/prometheus-operator  from github.com/prometheus-operator/prometheus-operator
#                                 (example/prometheus-operator-crd)
# Both come from the Go module proxy, at the versions the operator's Go dependencies match.
# k6-operator's module is refused by the proxy: its TestRun CRD is test/crds/k6-operator.
# Idempotent: a directory is refreshed only when its recorded version differs.
# Usage: hack/crds.sh  -> prints bin/crds.
set -euo pipefail

CNPG_VERSION="${CNPG_VERSION:-v1.30.0}"
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.94.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${ROOT}/bin/crds"

# fetch MODULE VERSION SUBDIR NAME: copies MODULE@VERSION/SUBDIR/*.yaml to $OUT/NAME.
fetch() {
  local module="$1" version="$2" subdir="$3" name="$4"
  local dest="${OUT}/${name}"
  if [[ -f "${dest}/.version" && "$(cat "${dest}/.version")" == "${module}@${version}" ]]; then
    return 0
  fi
  local dir
  # Outside any module, so the project's go.mod and go.sum stay untouched.
  dir="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "${module}@${version}" | jq -r .Dir)"
  if [[ -z "${dir}" || "${dir}" == null || ! -d "${dir}/${subdir}" ]]; then
    echo "crds.sh: ${module}@${version} has no ${subdir}" >&2
    exit 1
  fi
  rm -rf "${dest}"
  mkdir -p "${dest}"
  cp "${dir}/${subdir}"/*.yaml "${dest}/"
  chmod u+w "${dest}"/*.yaml # the module cache is read-only
  echo "${module}@${version}" > "${dest}/.version"
}

fetch github.com/cloudnative-pg/cloudnative-pg "${CNPG_VERSION}" config/crd/bases cloudnative-pg
fetch github.com/prometheus-operator/prometheus-operator "${PROMETHEUS_OPERATOR_VERSION}" \
  example/prometheus-operator-crd prometheus-operator
echo "${OUT}"
