#!/usr/bin/env bash
# Installs the lab's cluster add-ons (CoreDNS) and waits for them.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
sed -e "s|@COREDNS_VERSION@|${COREDNS_VERSION}|g" -e "s|@DNS_IP@|${LAB_DNS_IP}|g" \
  "${HERE}/manifests/coredns.yaml" | lab_kubectl apply -f - >/dev/null
lab_wait "CoreDNS" 180 lab_kubectl -n kube-system rollout status deployment/coredns --timeout=5s
