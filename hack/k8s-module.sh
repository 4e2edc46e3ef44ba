#!/usr/bin/env bash
# Prepares the scratch Go module, .cache/k8s-build/<version>, that builds the commands of
# k8s.io/kubernetes the project runs: kube-apiserver for envtest (hack/envtest-binaries.sh)
# and the lab's others (hack/lab/k8s.sh). One module for all of them, so they share one
# version and one module graph, and what the lab compiles after envtest comes from the cache.
# k8s.io/kubernetes points its staging modules at ./staging; a consumer module must
# redirect each of them to the published k8s.io/X v0.Y.Z instead.
# Every other module both graphs hold is raised to the project module's version (MVS never
# lowers one below what Kubernetes asks), so what both compile is compiled once: by source
# size, kube-apiserver then compiles 74% of the project's dependencies (its tests, helm, the
# manager), against 5% at Kubernetes' own pins.
# Usage: hack/k8s-module.sh KUBE_VERSION   (then `go build k8s.io/kubernetes/cmd/X` inside
# the directory). Prints, on stdout, the directory, then the -ldflags that stamp the real
# version into the binaries, one per line.
set -euo pipefail
version="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${root}/.cache/k8s-build/${version}"
set -- kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl
set -- "${@/#/k8s.io/kubernetes/cmd/}"
mkdir -p "${dir}"
cd "${dir}"
staging_version="v0.${version#v1.}"
staging="$(curl -fsS "$(go env GOPROXY | cut -d, -f1)/k8s.io/kubernetes/@v/${version}.mod" \
  | awk '/=> .\/staging\/src\// {print $1}')"
{
  echo "module gauntlet.local/k8s-$(basename "${dir}")"
  echo
  echo "go 1.26"
  echo
  echo "require k8s.io/kubernetes ${version}"
  echo
  echo "replace ("
  for m in ${staging}; do echo "	${m} => ${m} ${staging_version}"; done
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
# The project's versions of the modules both graphs hold, staging ones aside (replaced above).
pins="$(join <(go list -m -f '{{.Path}}' all | sort) \
  <(cd "${root}" && go list -m -f '{{if not .Main}}{{.Path}} {{.Version}}{{end}}' all | sort) \
  | awk -v staging="${staging}" 'BEGIN { for (i = split(staging, s); i > 0; i--) skip[s[i]] = 1 }
      !($1 in skip) { print "-require=" $1 "@" $2 }')"
if [[ -n "${pins}" ]]; then
  # shellcheck disable=SC2086 # one argument per module
  go mod edit ${pins}
  GOFLAGS=-mod=mod go mod tidy >&2
fi
# Version ldflags, as the Kubernetes build sets them, so --version prints the real version.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=${version} -X ${pkg}.gitMajor=1"
  ldflags+=" -X ${pkg}.gitMinor=$(echo "${version}" | cut -d. -f2) -X ${pkg}.gitTreeState=clean"
done
echo "${dir}"
echo "${ldflags}"
