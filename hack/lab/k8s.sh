#!/usr/bin/env bash
# Builds the node and control-plane binaries the lab adds to the envtest ones (kubelet, kubectl,
# kube-controller-manager, kube-scheduler, kube-proxy) from the same k8s.io/kubernetes
# version as kube-apiserver, into bin/lab/k8s/<version>/ (idempotent).
# Usage: hack/lab/k8s.sh  -> prints the directory.
set -euo pipefail
KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${ROOT}/bin/lab/k8s/${KUBE_VERSION}"
CMDS=(kubelet kube-controller-manager kube-scheduler kube-proxy kubectl)

# The scratch module is envtest-binaries.sh's too: one build in it at a time.
source "${ROOT}/hack/lock.sh"
hold_lock k8s-build
missing=()
for c in "${CMDS[@]}"; do [[ -x "${OUT}/${c}" ]] || missing+=("${c}"); done
if [[ ${#missing[@]} -gt 0 ]]; then
  mkdir -p "${OUT}"
  module="$("${ROOT}/hack/k8s-module.sh" "${KUBE_VERSION}")"
  work="$(sed -n 1p <<<"${module}")" ldflags="$(sed -n 2p <<<"${module}")"
  # One go build for all of them: they share most packages, which compile once, in parallel
  # (and with kube-apiserver's, built in the same module with the same flags for envtest).
  start=$(date +%s)
  tmp="${OUT}/.build"
  mkdir -p "${tmp}"
  pkgs=()
  for c in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/${c}"); done
  (cd "${work}" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -ldflags "${ldflags}" -o "${tmp}/" "${pkgs[@]}") >&2
  for c in "${missing[@]}"; do mv "${tmp}/${c}" "${OUT}/${c}"; done
  rmdir "${tmp}"
  echo "hack/lab/k8s.sh: built ${missing[*]} in $(( $(date +%s) - start )) s" >&2
fi
echo "${OUT}"
