#!/usr/bin/env bash
# Installs Grafana's own dashboard types (@grafana/schema) and the TypeScript compiler into
# .cache/grafana-schema at pinned versions (idempotent); dashboards/ are type-checked
# against them. Usage: hack/grafana-schema.sh  -> prints the folder (node_modules inside).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SCHEMA="13.2.3"
TYPESCRIPT="5.9.3"
dir="${ROOT}/.cache/grafana-schema"
stamp="${dir}/.installed-${SCHEMA}-${TYPESCRIPT}"

if [[ ! -e "${stamp}" ]]; then
  mkdir -p "${dir}"
  exec 9>"${dir}/.lock"
  flock 9
  if [[ ! -e "${stamp}" ]]; then
    echo "hack/grafana-schema.sh: npm install @grafana/schema@${SCHEMA} typescript@${TYPESCRIPT}" >&2
    [[ -e "${dir}/package.json" ]] || echo '{"private": true}' > "${dir}/package.json"
    npm install --prefix "${dir}" --no-audit --no-fund --loglevel=error \
      "@grafana/schema@${SCHEMA}" "typescript@${TYPESCRIPT}" >&2
    touch "${stamp}"
  fi
fi
echo "${dir}"
