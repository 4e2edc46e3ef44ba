#!/usr/bin/env bash
# Installs Debian packages the project needs, only those not installed yet (idempotent).
# Usage: hack/apt.sh PACKAGE...
set -euo pipefail
# missing PACKAGE...: sets missing to those not installed.
missing() {
  missing=()
  local pkg status
  for pkg in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null || true)
    [[ "${status}" == "install ok installed" ]] || missing+=("${pkg}")
  done
}
missing "$@"
[[ ${#missing[@]} -eq 0 ]] && exit 0
# make test's background build (hack/lab/prebuild.sh) installs beside deps: one apt at a time,
# and the second finds what the first installed.
source "$(cd "$(dirname "$0")" && pwd)/lock.sh"
hold_lock apt
missing "${missing[@]}"
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# apt locks are per machine: wait for a concurrent install instead of failing.
apt_opts=(-o DPkg::Lock::Timeout=300 -q -y --no-install-recommends)
echo "hack/apt.sh: installing ${missing[*]}" >&2
if ! ${sudo} apt-get install "${apt_opts[@]}" "${missing[@]}" >&2; then
  ${sudo} apt-get "${apt_opts[@]}" update >&2
  ${sudo} apt-get install "${apt_opts[@]}" "${missing[@]}" >&2
fi
