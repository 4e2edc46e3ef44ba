#!/usr/bin/env bash
# Prepares the scratch Go module, .cache/k8s-build/<version>, that builds the commands of
# k8s.io/kubernetes the project runs: kube-apiserver for envtest (hack/envtest-binaries.sh)
# and the lab's others (hack/lab/k8s.sh). One module for all of them, so they share one
# version and one module graph, and what the lab compiles after envtest comes from the cache.
# k8s.io/kubernetes points its staging modules at ./staging; a consumer module must
# redirect each of them to the published k8s.io/X v0.Y.Z instead.
# Usage: hack/k8s-module.sh KUBE_VERSION   (then `go build k8s.io/kubernetes/cmd/X` inside
# the directory). Prints, on stdout, the directory, then the -ldflags that stamp the real
# version into the binaries, one per line.
set -euo pipefail
version="$1"
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/k8s-build/${version}"
set -- kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl
set -- "${@/#/k8s.io/kubernetes/cmd/}"
mkdir -p "${dir}"
cd "${dir}"
staging_version="v0.${version#v1.}"
{
  echo "module gauntlet.local/k8s-$(basename "${dir}")"
  echo
  echo "go 1.26"
  echo
  echo "require k8s.io/kubernetes ${version}"
  echo
  echo "replace ("
  curl -fsS "$(go env GOPROXY | cut -d, -f1)/k8s.io/kubernetes/@v/${version}.mod" \
    | awk '/=> .\/staging\/src\// {print $1}' \
    | while read -r m; do echo "	${m} => ${m} ${staging_version}"; done
  echo ")"
} > go.mod
{
  echo "//go:build tools"
  echo
  echo "package tools"
  echo
  echo "import ("
  for p in "$@"; do echo "	_ \"${p}\""; done
  echo ")"
} > tools.go
GOFLAGS=-mod=mod go mod tidy >&2
# Version ldflags, as the Kubernetes build sets them, so --version prints the real version.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=${version} -X ${pkg}.gitMajor=1"
  ldflags+=" -X ${pkg}.gitMinor=$(echo "${version}" | cut -d. -f2) -X ${pkg}.gitTreeState=clean"
done
echo "${dir}"
echo "${ldflags}"
