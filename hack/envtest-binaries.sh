#!/usr/bin/env bash
# Builds kube-apiserver and etcd from Go modules (no download: setup-envtest is not used).
# Idempotent: binaries are cached under bin/k8s/<version>/ and rebuilt only when missing.
# Usage: hack/envtest-binaries.sh  -> prints the directory to use as KUBEBUILDER_ASSETS.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${ROOT}/bin/k8s/${KUBE_VERSION}"
WORK="${ROOT}/.cache/envtest-build"
# Static, like the lab's other Kubernetes binaries: the same flags let hack/lab/k8s.sh reuse
# every package compiled here.
export CGO_ENABLED=0

built() { [[ -x "${OUT}/kube-apiserver" && -x "${OUT}/etcd" ]]; }
if built; then
  echo "${OUT}"
  exit 0
fi
# The scratch module is hack/lab/k8s.sh's too: one build in it at a time.
source "${ROOT}/hack/lock.sh"
hold_lock k8s-build
if built; then
  echo "${OUT}"
  exit 0
fi
mkdir -p "${OUT}" "${WORK}/etcd"

# kube-apiserver: from the scratch module hack/k8s-module.sh prepares (the lab builds its
# other Kubernetes binaries in the same module).
module="$("${ROOT}/hack/k8s-module.sh" "${KUBE_VERSION}")"
dir="$(sed -n 1p <<<"${module}")" ldflags="$(sed -n 2p <<<"${module}")"
cd "${dir}"
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
