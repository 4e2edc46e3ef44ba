#!/usr/bin/env bash
# make lab-stack: the whole stack on this machine, for trying Gauntlet as a cluster user does:
# the lab (hack/lab/up.sh), CloudNativePG, k6-operator and Prometheus 3 under
# prometheus-operator (hack/lab/operators.sh), the chart pushed to the lab's registry and
# installed from it by digest with wire capture, and a namespace for runs. Idempotent: what
# runs already is kept, the release is upgraded. make lab-down removes it all.
#   hack/lab/stack.sh    -> prints the kubeconfig and the next commands
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
start=$(date +%s)
"${HERE}/up.sh" >/dev/null
"${HERE}/operators.sh"
helm="$("${LAB_ROOT}/hack/tools.sh" helm)"
kc=(--kubeconfig "${LAB_KUBECONFIG}")

# The chart as a release publishes it: packaged, pushed to an OCI registry (the lab's), and
# installed by the digest the push reports, so what runs is exactly what was pushed.
pkg="$(mktemp -d)"
trap 'rm -rf "${pkg}"' EXIT
"${helm}" package "${LAB_ROOT}/charts/gauntlet" --destination "${pkg}" >/dev/null
push="$("${helm}" push "${pkg}"/gauntlet-*.tgz "oci://${LAB_REGISTRY}/charts" --plain-http 2>&1)"
digest="$(sed -n 's/^Digest: *//p' <<<"${push}")"
[[ "${digest}" == sha256:* ]] || { echo "helm push reported no digest:" >&2; echo "${push}" >&2; exit 1; }
chart="oci://${LAB_REGISTRY}/charts/gauntlet@${digest}"

# The manager and the wire agents (host network: only the privileged level admits them); the
# runs' namespace stays restricted, as the targets and runners need nothing more.
lab_kubectl create namespace gauntlet-system --dry-run=client -o yaml |
  lab_kubectl label --local -f - pod-security.kubernetes.io/enforce=privileged -o yaml | lab_kubectl apply -f - >/dev/null
lab_kubectl create namespace bench --dry-run=client -o yaml |
  lab_kubectl label --local -f - pod-security.kubernetes.io/enforce=restricted -o yaml | lab_kubectl apply -f - >/dev/null
"${helm}" "${kc[@]}" upgrade --install gauntlet "${chart}" --plain-http -n gauntlet-system \
  -f "${HERE}/chart-values.yaml" --wait --timeout 5m >/dev/null
lab_log "chart ${chart} installed"
# The newcomer's kubeconfig: the admin's, with runs' namespace as the default, so the README's
# commands work as written.
user="${LAB_STATE}/user.kubeconfig"
cp "${LAB_KUBECONFIG}" "${user}"
"${LAB_K8S_BIN}/kubectl" --kubeconfig "${user}" config set-context --current --namespace bench >/dev/null
(cd "${LAB_ROOT}" && go build -o bin/gauntlet ./cmd/gauntlet)
lab_log "stack up in $(( $(date +%s) - start )) s"
# The quickstart as written asks for three whole CPUs (a target per worker, and the floor):
# fitted to what this machine's node has left beside the operators (docs/lab.md).
FIT="--scale 0.2 --duration 10s --repetitions 1 --cpu 300m --memory 256Mi --workers 1"
cat <<EOT
export KUBECONFIG=${user} PATH=${LAB_K8S_BIN}:${LAB_ROOT}/bin:\$PATH
gauntlet fit -f config/samples/quickstart.yaml ${FIT} | kubectl apply -f -
kubectl get br
gauntlet wait quickstart && gauntlet report quickstart
EOT
