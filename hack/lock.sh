# shellcheck shell=bash
# Sourced by the build scripts that make test may run twice at once (its own step and the
# lab's background build, hack/lab/prebuild.sh). hold_lock NAME: waits for, then holds until
# the script exits, the lock .cache/locks/NAME.lock, so the second caller finds the first's
# output instead of compiling the same packages beside it.
hold_lock() {
  local dir fd
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/locks"
  mkdir -p "${dir}"
  exec {fd}>"${dir}/$1.lock"
  flock "${fd}"
}
