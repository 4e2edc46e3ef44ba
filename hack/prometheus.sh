#!/usr/bin/env bash
# Installs Prometheus (Debian's 2.42: remote-write receiver and native histograms behind
# flags) and prints the binary's path (idempotent).
# Usage: hack/prometheus.sh  -> prints the path of the prometheus binary.
# The package's postinst may try to start a service; without systemd nothing starts,
# and tests run their own server on a free port with its own --storage.tsdb.path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
bin=/usr/bin/prometheus
if [[ ! -x "${bin}" ]]; then
  # Tests of several packages may call this at once: one install, the others wait for it.
  mkdir -p "${ROOT}/bin"
  exec 9>"${ROOT}/bin/.prometheus.lock"
  flock 9
  [[ -x "${bin}" ]] || "${ROOT}/hack/apt.sh" prometheus
fi
# promtool ships in the same package; a missing one means a broken install.
[[ -x "${bin}" && -x /usr/bin/promtool ]] || { echo "hack/prometheus.sh: prometheus not installed" >&2; exit 1; }
echo "${bin}"
