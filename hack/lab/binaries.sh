#!/usr/bin/env bash
# Every binary the lab runs that is not a Debian package, built from Go modules and cached
# under bin/ (idempotent: warm, a second).
# Usage: hack/lab/binaries.sh [core|operators|all]   (default all)
#   core:      kube-apiserver and etcd (envtest's), kubelet, kube-controller-manager,
#              kube-scheduler, kube-proxy, kubectl, CoreDNS: what make lab-up needs
#   operators: CloudNativePG, k6-operator, prometheus-operator and its config reloader
#              (hack/lab/ops.sh builds them with CoreDNS), and Flux's two controllers with
#              the lab's Git server (hack/lab/flux.sh)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/versions.sh"
what="${1:-all}"
if [[ "${what}" == core || "${what}" == all ]]; then
  "${HERE}/../envtest-binaries.sh" >/dev/null
  "${HERE}/k8s.sh" >/dev/null
fi
# CoreDNS (core) and the operators come from one go build: asking for either builds both.
"${HERE}/ops.sh" >/dev/null
if [[ "${what}" == operators || "${what}" == all ]]; then
  "${HERE}/flux.sh" >/dev/null
fi
