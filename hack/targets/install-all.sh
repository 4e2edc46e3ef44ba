#!/usr/bin/env bash
# Installs every target as the local mode does on first use (`bash <install> <target dir>`,
# the `local.install` line of its target.yaml), one after another. make deps runs it beside
# its compiles: the installs wait mostly on npm's and PyPI's downloads. Each script caches
# its build and takes a lock, so the tiers that install again find them done.
# Usage: hack/targets/install-all.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
for spec in "${ROOT}"/targets/*/target.yaml; do
  dir="$(dirname "${spec}")"
  script="$(sed -n 's/^  install: *//p' "${spec}")"
  [[ -n "${script}" ]] || continue
  bash "${ROOT}/${script}" "${dir}" || { echo "hack/targets/install-all.sh: ${script} ${dir#"${ROOT}/"} failed" >&2; exit 1; }
done
