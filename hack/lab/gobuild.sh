#!/usr/bin/env bash
# Builds one main package of a published Go module into bin/lab/<name>-<version>
# (idempotent), from a scratch module that requires it: CoreDNS and the operators the
# lab runs (CloudNativePG, k6-operator, prometheus-operator) come from their own modules.
# Usage: hack/lab/gobuild.sh NAME MODULE VERSION PACKAGE [LDFLAGS]  -> prints the binary.
set -euo pipefail
name="$1" module="$2" version="$3" pkg="$4" ldflags="${5:-}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
out="${ROOT}/bin/lab/${name}-${version}"
if [[ ! -x "${out}" ]]; then
  work="${ROOT}/.cache/lab/build/${name}"
  mkdir -p "${work}" "$(dirname "${out}")"
  cd "${work}"
  printf 'module gauntlet.local/lab-%s\n\ngo 1.26\n\nrequire %s %s\n' "${name}" "${module}" "${version}" > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "${pkg}" > tools.go
  start=$(date +%s)
  GOFLAGS=-mod=mod go mod tidy >&2
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w ${ldflags}" -o "${out}.tmp" "${pkg}" >&2
  mv "${out}.tmp" "${out}"
  echo "hack/lab/gobuild.sh: built ${name} ${version} in $(( $(date +%s) - start )) s" >&2
fi
echo "${out}"
