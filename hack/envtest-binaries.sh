#!/usr/bin/env bash
# Builds kube-apiserver and etcd from Go modules (setup-envtest cannot download here).
# Idempotent: binaries are cached under bin/k8s/<version>/ and rebuilt only when missing.
# Usage: hack/envtest-binaries.sh  -> prints the directory to use as KUBEBUILDER_ASSETS.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${ROOT}/bin/k8s/${KUBE_VERSION}"
WORK="${ROOT}/.cache/envtest-build"

if [[ -x "${OUT}/kube-apiserver" && -x "${OUT}/etcd" ]]; then
  echo "${OUT}"
  exit 0
fi
mkdir -p "${OUT}" "${WORK}/apiserver" "${WORK}/etcd"

# kube-apiserver: k8s.io/kubernetes points its staging modules at ./staging; a consumer
# module must redirect each of them to the published k8s.io/X v0.Y.Z instead.
staging_version="v0.${KUBE_VERSION#v1.}"
cd "${WORK}/apiserver"
{
  echo "module gauntlet.local/envtest-apiserver"
  echo
  echo "go 1.26"
  echo
  echo "require k8s.io/kubernetes ${KUBE_VERSION}"
  echo
  echo "replace ("
  curl -fsS "$(go env GOPROXY | cut -d, -f1)/k8s.io/kubernetes/@v/${KUBE_VERSION}.mod" \
    | awk '/=> .\/staging\/src\// {print $1}' \
    | while read -r m; do echo "	${m} => ${m} ${staging_version}"; done
  echo ")"
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
GOFLAGS=-mod=mod go mod tidy >&2
# Version ldflags, as the Kubernetes build sets them, so --version prints the real version.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1"
  ldflags+=" -X ${pkg}.gitMinor=$(echo "${KUBE_VERSION}" | cut -d. -f2) -X ${pkg}.gitTreeState=clean"
done
GOFLAGS=-mod=mod go build -ldflags "${ldflags}" -o "${OUT}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
mv "${OUT}/kube-apiserver.tmp" "${OUT}/kube-apiserver"

# etcd: the server module's etcdmain is the whole etcd binary.
cd "${WORK}/etcd"
cat > go.mod <<MOD
module gauntlet.local/envtest-etcd

go 1.26

require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
MOD
cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
GOFLAGS=-mod=mod go mod tidy >&2
GOFLAGS=-mod=mod go build -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=${ETCD_VERSION}" -o "${OUT}/etcd.tmp" . >&2
mv "${OUT}/etcd.tmp" "${OUT}/etcd"
echo "${OUT}"
