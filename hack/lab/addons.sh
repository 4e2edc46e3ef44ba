#!/usr/bin/env bash
# Installs the lab's cluster add-ons (CoreDNS, local storage) and waits for them.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
sed -e "s|@COREDNS_VERSION@|${COREDNS_VERSION}|g" -e "s|@DNS_IP@|${LAB_DNS_IP}|g" \
  "${HERE}/manifests/coredns.yaml" | lab_kubectl apply -f - >/dev/null

# Local PersistentVolumes: a folder each, under the run state (gone with lab-down). The
# kubelet hands them to pods by bind mount and applies the pod's fsGroup (CloudNativePG: 26).
lab_kubectl apply -f "${HERE}/manifests/storage.yaml" >/dev/null
for i in $(seq 1 "${LAB_VOLUMES}"); do
  dir="${LAB_RUN}/volumes/pv${i}"
  mkdir -p "${dir}"
  cat <<YAML
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: lab-pv${i}, labels: {gauntlet.dev/lab: "true"}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: lab-local
  local: {path: ${dir}}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [${LAB_NAME}]}]}]
YAML
done | lab_kubectl apply -f - >/dev/null
lab_wait "CoreDNS" 180 lab_kubectl -n kube-system rollout status deployment/coredns --timeout=5s
