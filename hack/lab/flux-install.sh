#!/usr/bin/env bash
# Installs Flux's source-controller and kustomize-controller in namespace flux-system, from
# their own modules' config/ (CRDs, RBAC, Deployments, source-controller's Service) rendered
# with kustomize, running the images hack/lab/images.sh builds here from hack/lab/flux.sh's
# binaries (and the lab's Git server's image, which the test deploys with its repository).
# Idempotent. The controllers' config/ has no NetworkPolicies (Flux's own distribution adds
# them; the lab installs only what the modules ship), so nothing blocks the controllers from
# the Git server or kustomize-controller from source-controller's artifacts.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
work="${LAB_STATE}/manifests/flux"
"${HERE}/images.sh" flux

# A writable copy of MODULE@VERSION's config/ under work/NAME.
config_of() {
  local dir
  dir="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$2@$3" | jq -r .Dir)"
  rm -rf "${work:?}/$1"
  mkdir -p "${work}/$1"
  cp -r "${dir}/config" "${work}/$1/"
  chmod -R u+w "${work}/$1"
}
mkdir -p "${work}"
config_of source-controller github.com/fluxcd/source-controller "${SOURCE_CONTROLLER_VERSION}"
config_of kustomize-controller github.com/fluxcd/kustomize-controller "${KUSTOMIZE_CONTROLLER_VERSION}"
echo '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "flux-system"}}' > "${work}/namespace.yaml"
# Not config/default: kustomize-controller's pulls source-controller's manifests from GitHub,
# and each puts its controller in a namespace of its own. Both run as flux-system's default
# ServiceAccount, as their config/rbac binds it (kustomize-controller's as cluster-admin).
cat > "${work}/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: flux-system
resources:
- namespace.yaml
- source-controller/config/crd
- source-controller/config/rbac
- source-controller/config/manager
- kustomize-controller/config/crd
- kustomize-controller/config/rbac
- kustomize-controller/config/manager
images:
- {name: fluxcd/source-controller, newName: gauntlet.local/flux-source-controller, newTag: ${SOURCE_CONTROLLER_VERSION}}
- {name: fluxcd/kustomize-controller, newName: gauntlet.local/flux-kustomize-controller, newTag: ${KUSTOMIZE_CONTROLLER_VERSION}}
YAML
lab_kubectl apply --server-side --force-conflicts -k "${work}" >/dev/null
lab_wait "source-controller" 300 lab_kubectl -n flux-system rollout status deployment/source-controller --timeout=5s
lab_wait "kustomize-controller" 300 lab_kubectl -n flux-system rollout status deployment/kustomize-controller --timeout=5s
