#!/usr/bin/env bash
# Installs the three operators Gauntlet drives, each from its own project's manifests (the
# config/ of its Go module, rendered with kustomize), running the images hack/lab/images.sh
# built here; then Prometheus 3 (hack/lab/prom.sh) under prometheus-operator with the
# remote-write receiver on, discovering the kubelet's cAdvisor endpoint and the chart's
# ServiceMonitor as kube-prometheus-stack does.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
work="${LAB_STATE}/manifests"
mkdir -p "${work}"
"${HERE}/binaries.sh" operators
"${HERE}/images.sh" operators
PGBOUNCER_VERSION="$(basename "$("${HERE}/pgbouncer.sh")")"
PGBOUNCER_VERSION="${PGBOUNCER_VERSION#pgbouncer-}"

# module_config NAME MODULE VERSION SUBDIR: a writable copy of the module's SUBDIR.
module_config() {
  local dir
  dir="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$2@$3" | jq -r .Dir)"
  rm -rf "${work:?}/$1"
  mkdir -p "${work}/$1"
  cp -r "${dir}/$4" "${work}/$1/"
  chmod -R u+w "${work}/$1"
}

# The operators idle beside the runs they reconcile; their upstream CPU requests (100m each)
# would only reserve a 2-CPU node's room that the runs' pods, k6-operator's starter (50m)
# among them, need. Their limits stay as upstream ships them.
LAB_OPERATOR_CPU=20m

# --- CloudNativePG: config/default (CRDs, RBAC, manager, webhooks; it makes its own certs) ---
module_config cnpg github.com/cloudnative-pg/cloudnative-pg "${CNPG_VERSION}" config
cat > "${work}/cnpg/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [config/default]
images: [{name: controller, newName: gauntlet.local/cloudnative-pg, newTag: ${CNPG_VERSION}}]
patches:
- target: {kind: Deployment, name: cnpg-controller-manager}
  patch: |-
    - {op: replace, path: /spec/template/spec/containers/0/imagePullPolicy, value: IfNotPresent}
    - {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: POSTGRES_IMAGE_NAME, value: "gauntlet.local/postgresql:15"}}
    - {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: PGBOUNCER_IMAGE_NAME, value: "gauntlet.local/pgbouncer:${PGBOUNCER_VERSION}"}}
    - {op: replace, path: /spec/template/spec/containers/0/resources/requests/cpu, value: ${LAB_OPERATOR_CPU}}
YAML
lab_kubectl apply --server-side --force-conflicts -k "${work}/cnpg" >/dev/null

# --- k6-operator: its CRDs, RBAC and manager (without the kube-rbac-proxy sidecar) ----------
module_config k6-operator github.com/grafana/k6-operator "${K6_OPERATOR_VERSION}" config
cat > "${work}/k6-operator/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: k6-operator-system
namePrefix: k6-operator-
resources: [config/crd, config/rbac, config/manager]
# config/manager names its image ghcr.io/grafana/k6-operator:latest already (its own images:).
images: [{name: ghcr.io/grafana/k6-operator, newName: gauntlet.local/k6-operator, newTag: ${K6_OPERATOR_VERSION}}]
patches:
- target: {kind: Deployment, name: .*controller-manager}  # before or after namePrefix
  patch: |-
    - {op: replace, path: /spec/template/spec/containers/0/resources/requests/cpu, value: ${LAB_OPERATOR_CPU}}
YAML
lab_kubectl apply --server-side --force-conflicts -k "${work}/k6-operator" >/dev/null

# --- prometheus-operator: CRDs, RBAC and Deployment from example/ -----------------------------
module_config prometheus-operator github.com/prometheus-operator/prometheus-operator "${PROMETHEUS_OPERATOR_VERSION}" example
po="${work}/prometheus-operator"
cat > "${po}/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: monitoring
resources:
- namespace.yaml
$(cd "${po}" && printf -- '- %s\n' example/prometheus-operator-crd/*.yaml)
- example/rbac/prometheus-operator/prometheus-operator-cluster-role.yaml
- example/rbac/prometheus-operator/prometheus-operator-cluster-role-binding.yaml
- example/rbac/prometheus-operator/prometheus-operator-service-account.yaml
- example/rbac/prometheus-operator/prometheus-operator-deployment.yaml
- example/rbac/prometheus-operator/prometheus-operator-service.yaml
- example/rbac/prometheus/prometheus-cluster-role.yaml
- example/rbac/prometheus/prometheus-cluster-role-binding.yaml
- example/rbac/prometheus/prometheus-service-account.yaml
- prometheus.yaml
images:
- {name: quay.io/prometheus-operator/prometheus-operator, newName: gauntlet.local/prometheus-operator, newTag: ${PROMETHEUS_OPERATOR_VERSION}}
patches:
- target: {kind: Deployment, name: prometheus-operator}
  patch: |-
    - {op: replace, path: /spec/template/spec/containers/0/args/1, value: "--prometheus-config-reloader=gauntlet.local/prometheus-config-reloader:${PROMETHEUS_OPERATOR_VERSION}"}
    - {op: replace, path: /spec/template/spec/containers/0/resources/requests/cpu, value: ${LAB_OPERATOR_CPU}}
    # The kubelets as a Service's endpoints, which the kubelet ServiceMonitor selects.
    - {op: add, path: /spec/template/spec/containers/0/args/-, value: "--kubelet-service=kube-system/kubelet"}
YAML
echo '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "monitoring"}}' > "${po}/namespace.yaml"
sed -e "s|@PROMETHEUS_VERSION@|${PROMETHEUS_VERSION}|g" "${HERE}/manifests/prometheus.yaml" > "${po}/prometheus.yaml"
# CRDs first: the Prometheus and ServiceMonitor below need them established.
lab_kubectl apply --server-side --force-conflicts -f "${po}/example/prometheus-operator-crd" >/dev/null
lab_kubectl wait --for=condition=Established --timeout=60s -f "${po}/example/prometheus-operator-crd" >/dev/null
lab_kubectl apply --server-side --force-conflicts -k "${po}" >/dev/null

lab_wait "CloudNativePG" 300 lab_kubectl -n cnpg-system rollout status deployment/cnpg-controller-manager --timeout=5s
lab_wait "k6-operator" 300 lab_kubectl -n k6-operator-system rollout status deployment/k6-operator-controller-manager --timeout=5s
lab_wait "prometheus-operator" 300 lab_kubectl -n monitoring rollout status deployment/prometheus-operator --timeout=5s
lab_wait "Prometheus" 300 lab_kubectl -n monitoring rollout status statefulset/prometheus-lab --timeout=5s
# Which Prometheus the lab runs, as it reports itself (the lab log keeps it).
lab_log "Prometheus $(lab_kubectl get --raw /api/v1/namespaces/monitoring/services/prometheus-operated:9090/proxy/api/v1/status/buildinfo |
  sed -n 's/.*"version":"\([^"]*\)".*/\1/p') under prometheus-operator ${PROMETHEUS_OPERATOR_VERSION}"
