#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller, and the lab's Git server, from
# the module hack/lab/flux in one go build (their common dependencies compile once). Cached
# in bin/lab/flux/<key>/, keyed by the module's files (idempotent: warm, a second). The lab
# tier starts it in the background while the seeds run (test/lab/gitops_test.go).
# Usage: hack/lab/flux.sh  -> prints the directory.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MOD="${ROOT}/hack/lab/flux"
key="$(cat "${MOD}/go.mod" "${MOD}/go.sum" "${MOD}"/*.go "${MOD}"/*/*.go | sha256sum | cut -c1-12)"
OUT="${ROOT}/bin/lab/flux/${key}"
declare -A BINS=(
  [source-controller]=github.com/fluxcd/source-controller
  [kustomize-controller]=github.com/fluxcd/kustomize-controller
  [gitserver]=./gitserver
)
if [[ ! -f "${OUT}/.complete" ]]; then
  rm -rf "${OUT}" && mkdir -p "${OUT}"
  start=$(date +%s)
  # Static, as Flux's images ship them (their Dockerfiles build with CGO_ENABLED=0).
  (cd "${MOD}" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "${OUT}/.build/" "${BINS[@]}") >&2
  # go build -o DIR/ names each binary after its import path's last element.
  for name in "${!BINS[@]}"; do
    mv "${OUT}/.build/$(basename "${BINS[${name}]}")" "${OUT}/${name}"
  done
  rm -rf "${OUT}/.build"
  touch "${OUT}/.complete"
  echo "hack/lab/flux.sh: built ${!BINS[*]} in $(( $(date +%s) - start )) s" >&2
fi
echo "${OUT}"
