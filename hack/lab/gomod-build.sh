# shellcheck shell=bash
# Sourced by ops.sh and flux.sh. gomod_build NAME binary=package...: builds the packages of
# the module hack/lab/NAME in one go build (static, -s -w; CGO_ENABLED=0 as every Go build
# here, so shared packages come from the build cache) into bin/lab/NAME/<key>/, the key
# hashing the module's files, and prints that directory. Idempotent: a cached build is kept.
# GOMOD_TAGS and GOMOD_LDFLAGS, when set, add build tags and linker flags (part of the key).
gomod_build() {
  local name="$1"; shift
  local root mod key out start pair
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  mod="${root}/hack/lab/${name}"
  local files=("${mod}/go.mod" "${mod}/go.sum")
  shopt -s nullglob; files+=("${mod}"/*.go "${mod}"/*/*.go); shopt -u nullglob
  key="$( (cat "${files[@]}"; [[ -z "${GOMOD_TAGS:-}${GOMOD_LDFLAGS:-}" ]] || echo "${GOMOD_TAGS:-}|${GOMOD_LDFLAGS:-}") | sha256sum | cut -c1-12)"
  out="${root}/bin/lab/${name}/${key}"
  # A build in progress elsewhere (the lab's background build) finishes first.
  source "${root}/hack/lock.sh"
  hold_lock "gomod-${name}"
  if [[ ! -f "${out}/.complete" ]]; then
    rm -rf "${out}" && mkdir -p "${out}"
    start=$(date +%s)
    local pkgs=()
    for pair in "$@"; do pkgs+=("${pair#*=}"); done
    (cd "${mod}" && CGO_ENABLED=0 go build -tags "${GOMOD_TAGS:-}" -ldflags "-s -w ${GOMOD_LDFLAGS:-}" -o "${out}/.build/" "${pkgs[@]}") >&2
    # go build -o DIR/ names each binary after its import path's last element.
    for pair in "$@"; do
      mv "${out}/.build/$(basename "${pair#*=}")" "${out}/${pair%%=*}"
    done
    rm -rf "${out}/.build"
    touch "${out}/.complete"
    echo "hack/lab/${name}: built ${*%%=*} in $(( $(date +%s) - start )) s" >&2
  fi
  echo "${out}"
}
