#!/usr/bin/env bash
# Installs the Debian packages of TARGET_DIR/debian.lock (Debian's nginx), checks their
# versions, and checks that the configuration template renders into a configuration this
# nginx accepts (nginx -t), so a bad template fails here and not in the middle of a run.
# Nothing is compiled. Idempotent: apt.sh skips installed packages.
# Usage: hack/targets/nginx.sh TARGET_DIR
set -euo pipefail
dir=${1:?usage: hack/targets/nginx.sh TARGET_DIR}
root="$(cd "$(dirname "$0")/../.." && pwd)"
lock="${dir}/debian.lock"
[[ -f "${dir}/nginx.conf.in" ]] || { echo "hack/targets/nginx.sh: ${dir}/nginx.conf.in not found" >&2; exit 1; }
"${root}/hack/targets/debian-lock.sh" "${lock}"

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${tmp}/tmp"
sed -e "s|@PREFIX@|${tmp}|g" -e "s|@HOST@|127.0.0.1|g" -e "s|@PORT@|8080|g" -e "s|@WORKERS@|1|g" \
  "${dir}/nginx.conf.in" > "${tmp}/nginx.conf"
nginx -t -q -p "${tmp}" -c "${tmp}/nginx.conf" -e stderr
