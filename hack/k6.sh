#!/usr/bin/env bash
# Installs k6 (the load generator) into bin/k6 at the pinned version (idempotent).
# Usage: hack/k6.sh  -> prints the binary's path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="v1.8.1"
bin="${ROOT}/bin/k6"

installed() { [[ -x "${bin}" ]] && "${bin}" version 2>/dev/null | grep -q "k6 ${VERSION} "; }

if ! installed; then
  mkdir -p "${ROOT}/bin"
  # Tests of several packages may call this at once: one build, the others wait for it.
  exec 9>"${ROOT}/bin/.k6.lock"
  flock 9
  if ! installed; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "${tmp}"' EXIT
    echo "hack/k6.sh: building go.k6.io/k6@${VERSION} (about 80 s)" >&2
    GOBIN="${tmp}" go install "go.k6.io/k6@${VERSION}" >&2
    mv "${tmp}/k6" "${bin}"   # atomic within bin/: nobody runs a half-written binary
  fi
fi
echo "${bin}"
