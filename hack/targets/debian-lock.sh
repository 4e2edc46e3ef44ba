#!/usr/bin/env bash
# Installs the Debian packages a target's debian.lock names (through hack/apt.sh) and checks
# that each installed version matches the lock's pattern, e.g. `libpq-dev 15.*`.
# Usage: hack/targets/debian-lock.sh TARGET_DIR/debian.lock
set -euo pipefail
lock=${1:?usage: hack/targets/debian-lock.sh LOCK_FILE}
root="$(cd "$(dirname "$0")/../.." && pwd)"
[[ -f "${lock}" ]] || { echo "hack/targets/debian-lock.sh: ${lock} not found" >&2; exit 1; }

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
    echo "hack/targets/debian-lock.sh: ${names[i]} ${version} does not match ${patterns[i]} (${lock})" >&2
    exit 1
  }
done
