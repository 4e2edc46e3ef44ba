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
[[ -f "${lock}" ]] || { echo "hack/targets/nginx.sh: ${lock} not found" >&2; exit 1; }

names=() patterns=()
while read -r name pattern _; do
  [[ -z "${name}" || "${name}" == \#* ]] && continue
  names+=("${name}") patterns+=("${pattern}")
done < "${lock}"
"${root}/hack/apt.sh" "${names[@]}"
for i in "${!names[@]}"; do
  version=$(dpkg-query -W -f='${Version}' "${names[i]}")
  # shellcheck disable=SC2053  # the pattern is a glob on purpose
  [[ "${version}" == ${patterns[i]} ]] || {
    echo "hack/targets/nginx.sh: ${names[i]} ${version} does not match ${patterns[i]} (${lock})" >&2
    exit 1
  }
done

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${tmp}/tmp"
sed -e "s|@PREFIX@|${tmp}|g" -e "s|@PORT@|8080|g" -e "s|@WORKERS@|1|g" \
  "${dir}/nginx.conf.in" > "${tmp}/nginx.conf"
nginx -t -q -p "${tmp}" -c "${tmp}/nginx.conf" -e stderr
