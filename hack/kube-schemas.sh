#!/usr/bin/env bash
# Generates the JSON schemas kubeconform validates the chart with (kubeconform's published
# schemas cannot be downloaded here): from the OpenAPI v3 of the envtest kube-apiserver with
# Gauntlet's CRDs and those of the operators it drives installed (hack/kubeschemas).
# Idempotent: regenerated only when the API server version, a CRD or the generator changes.
# Usage: hack/kube-schemas.sh  -> prints the schema location; KUBE_VERSION= is the version to
# pass to kubeconform's -kubernetes-version (without the v).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
assets="$("${ROOT}/hack/envtest-binaries.sh")"
crds="$("${ROOT}/hack/crds.sh")"
version="$(basename "${assets}")"
version="${version#v}"
dirs=("${ROOT}/config/crd/bases" "${crds}/cloudnative-pg" "${crds}/prometheus-operator" "${ROOT}/test/crds/k6-operator")
OUT="${ROOT}/bin/kube-schemas"
key="$( { echo "${version}"; cat "${ROOT}/hack/kubeschemas/main.go"; for d in "${dirs[@]}"; do cat "${d}"/*.yaml; done; } | sha256sum | cut -d' ' -f1)"
if [[ ! -f "${OUT}/.key" || "$(cat "${OUT}/.key")" != "${key}" ]]; then
  rm -rf "${OUT}"
  mkdir -p "${OUT}"
  (cd "${ROOT}" && go run ./hack/kubeschemas -out "${OUT}" -kubernetes-version "${version}" -assets "${assets}" "${dirs[@]}") >&2
  echo "${key}" > "${OUT}/.key"
fi
echo "${OUT}"
