#!/usr/bin/env bash
# Installs the project's Go tools into bin/ at pinned versions (idempotent).
# Usage: hack/tools.sh TOOL  (controller-gen | helm | kubeconform)  -> prints the binary's path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
declare -A PKG=(
  [controller-gen]="sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0"
  [helm]="helm.sh/helm/v4/cmd/helm@v4.3.1"
  [kubeconform]="github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0"
)
tool="$1"
[[ -n "${PKG[$tool]:-}" ]] || { echo "hack/tools.sh: unknown tool ${tool}" >&2; exit 2; }
version="${PKG[$tool]##*@}"
bin="${ROOT}/bin/${tool}-${version}"
if [[ ! -x "${bin}" ]]; then
  tmp="$(mktemp -d)"
  GOBIN="${tmp}" go install "${PKG[$tool]}" >&2
  mkdir -p "${ROOT}/bin"
  mv "${tmp}/${tool}" "${bin}"
  rmdir "${tmp}"
fi
echo "${bin}"
