#!/usr/bin/env bash
# Every binary the lab runs that is not a Debian package, built from Go modules and cached
# under bin/ (idempotent: warm, a second).
# Usage: hack/lab/binaries.sh [core|operators|lab|flux|all]   (default all)
#   core:      kube-apiserver and etcd (envtest's), kubelet, kube-controller-manager,
#              kube-scheduler, kube-proxy, kubectl, CoreDNS: what make lab-up needs
#   operators: CloudNativePG, k6-operator, prometheus-operator and its config reloader,
#              Prometheus 3 (hack/lab/prom.sh)
#              (hack/lab/ops.sh builds them with CoreDNS)
#   lab:       core and operators: what the lab tier needs before it starts
#   flux:      Flux's two controllers with the lab's Git server (hack/lab/flux.sh); only the
#              GitOps subtest needs them, and its images step builds them when missing
#   all:       lab and flux
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/versions.sh"
what="${1:-all}"
case "${what}" in
core | operators | lab | flux | all) ;;
*) echo "usage: hack/lab/binaries.sh [core|operators|lab|flux|all]" >&2; exit 2 ;;
esac
if [[ "${what}" != flux ]]; then
  # CoreDNS (core) and the operators come from one go build: asking for either builds both.
  # First, as it shares nothing with the Kubernetes build make test's deps run beside it.
  "${HERE}/ops.sh" >/dev/null
  "${HERE}/prom.sh" >/dev/null
fi
if [[ "${what}" == core || "${what}" == lab || "${what}" == all ]]; then
  "${HERE}/../envtest-binaries.sh" >/dev/null
  "${HERE}/k8s.sh" >/dev/null
fi
if [[ "${what}" == flux || "${what}" == all ]]; then
  "${HERE}/flux.sh" >/dev/null
fi
