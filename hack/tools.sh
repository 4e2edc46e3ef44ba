#!/usr/bin/env bash
# Installs the project's Go tools into bin/ at pinned versions (idempotent).
# Usage: hack/tools.sh TOOL  (controller-gen | helm | kubeconform | golangci-lint | goreleaser | cosign)  -> prints the binary's path.
# controller-gen and helm are `tool` lines of go.mod, built in the project's own module graph:
# the tests compile the same Kubernetes and helm packages at the same versions, so a cold
# build compiles them once (built apart, at their own pins, helm shared 31% of its sources
# with the tests; in the project's graph, all of them). kubeconform, golangci-lint, goreleaser
# and cosign share little with the tests: they are installed at their own pins, outside go.mod.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
declare -A TOOL=(
  [controller-gen]="sigs.k8s.io/controller-tools/cmd/controller-gen"
  [helm]="helm.sh/helm/v4/cmd/helm"
)
declare -A INSTALL=(
  [kubeconform]="github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0"
  [golangci-lint]="github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0"
  [goreleaser]="github.com/goreleaser/goreleaser/v2@v2.15.1"
  [cosign]="github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3"
)
tool="$1"
cd "${ROOT}"
if [[ -n "${TOOL[$tool]:-}" ]]; then
  version="$(go list -f '{{.Module.Version}}' "${TOOL[$tool]}")"
elif [[ -n "${INSTALL[$tool]:-}" ]]; then
  version="${INSTALL[$tool]##*@}"
else
  echo "hack/tools.sh: unknown tool ${tool}" >&2
  exit 2
fi
bin="${ROOT}/bin/${tool}-${version}"
if [[ ! -x "${bin}" ]]; then
  tmp="$(mktemp -d)"
  if [[ -n "${TOOL[$tool]:-}" ]]; then
    go build -o "${tmp}/${tool}" "${TOOL[$tool]}" >&2
  else
    GOBIN="${tmp}" go install "${INSTALL[$tool]}" >&2
  fi
  mkdir -p "${ROOT}/bin"
  mv "${tmp}/${tool}" "${bin}"
  rmdir "${tmp}"
fi
echo "${bin}"
