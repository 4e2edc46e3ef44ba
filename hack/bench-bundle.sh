#!/usr/bin/env bash
# Packs what hack/bench-generator and hack/pingtable -reference need into .cache/bench-bundle/,
# for a bigger, quieter machine that has no Go, Node, wrk or package registry (the 16-core
# measuring machine): static binaries, xz-compressed, plus CPython wheels for its interpreter.
# On that machine, `hack/bench-bundle.sh unpack` puts them where the tools look, after which
# both tools run with -skip-install.
#
#   hack/bench-bundle.sh pack generator   # k6, bench-generator, go-nethttp
#   hack/bench-bundle.sh pack reference   # pingtable, wrk, node, the five targets and references
#   hack/bench-bundle.sh unpack           # on the measuring machine (PYTHON=its python3)
#
# pack reference downloads wheels for PY_VERSION (default 3.12, the measuring machine's).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "${ROOT}"
out=.cache/bench-bundle
export CGO_ENABLED=0

pack_generator() {
  rm -rf "${out}" && mkdir -p "${out}"
  hack/k6.sh >/dev/null
  go build -ldflags="-s -w" -o "${out}/bench-generator" ./hack/bench-generator
  hack/targets/go.sh targets/go-nethttp
  cp bin/k6 "${out}/k6"
  cp targets/go-nethttp/.build/server "${out}/go-nethttp"
  strip -s "${out}/go-nethttp"   # symbols only: the code that runs is the same
  xz -T0 -6 "${out}"/*
}

pack_reference() {
  rm -rf "${out}" && mkdir -p "${out}/wheels" "${out}/lib"
  hack/apt.sh wrk >/dev/null
  go build -ldflags="-s -w" -o "${out}/pingtable" ./hack/pingtable
  hack/targets/go.sh targets/go-nethttp
  hack/targets/go.sh hack/reference/go-nethttp
  hack/targets/node.sh targets/node-fastify
  hack/targets/node.sh targets/node-express
  hack/targets/node.sh hack/reference/node-express
  cp targets/go-nethttp/.build/server "${out}/go-nethttp"
  cp hack/reference/go-nethttp/.build/server "${out}/go-nethttp-reference"
  cp "$(command -v node)" "${out}/node"
  # Symbols only (the code that runs is the same): the carry to that machine is limited in size.
  strip -s "${out}/go-nethttp" "${out}/go-nethttp-reference" "${out}/node"
  cp "$(command -v wrk)" "${out}/wrk"
  # wrk's shared libraries that an Ubuntu or another Debian may lack.
  ldd "$(command -v wrk)" | awk '/luajit/ {print $3}' | xargs -r -I{} cp -L {} "${out}/lib/"
  tar -C targets/node-fastify -cf "${out}/node-fastify-modules.tar" node_modules .build
  tar -C targets/node-express -cf "${out}/node-express-modules.tar" node_modules .build
  tar -C hack/reference/node-express -cf "${out}/node-express-reference-modules.tar" node_modules .build
  local py=${PY_VERSION:-3.12}
  for req in targets/python-{starlette,fastapi}/requirements.txt hack/reference/python-{starlette,fastapi}/requirements.txt; do
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version "${py}" --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux_2_28_x86_64 --implementation cp -d "${out}/wheels" -r "${req}"
  done
  xz -T0 -9 "${out}/pingtable" "${out}/go-nethttp" "${out}/go-nethttp-reference" "${out}/node" "${out}"/*-modules.tar
}

unpack() {
  [[ -d "${out}" ]] || { echo "hack/bench-bundle.sh: ${out} is missing: carry it from a machine that ran pack" >&2; exit 1; }
  for f in "${out}"/*.xz; do [[ -e "${f}" ]] && xz -dkf "${f}"; done
  mkdir -p bin targets/go-nethttp/.build hack/reference/go-nethttp/.build
  [[ -f "${out}/k6" ]] && install -m 0755 "${out}/k6" bin/k6
  for tool in bench-generator pingtable wrk node; do
    [[ -f "${out}/${tool}" ]] && install -m 0755 "${out}/${tool}" "bin/${tool}"
  done
  [[ -f "${out}/go-nethttp" ]] && install -m 0755 "${out}/go-nethttp" targets/go-nethttp/.build/server
  [[ -f "${out}/go-nethttp-reference" ]] && install -m 0755 "${out}/go-nethttp-reference" hack/reference/go-nethttp/.build/server
  [[ -f "${out}/node-fastify-modules.tar" ]] && tar -C targets/node-fastify -xf "${out}/node-fastify-modules.tar"
  [[ -f "${out}/node-express-modules.tar" ]] && tar -C targets/node-express -xf "${out}/node-express-modules.tar"
  [[ -f "${out}/node-express-reference-modules.tar" ]] && tar -C hack/reference/node-express -xf "${out}/node-express-reference-modules.tar"
  if [[ -d "${out}/wheels" ]]; then
    local python=${PYTHON:-python3}
    for d in targets/python-{starlette,fastapi} hack/reference/python-{starlette,fastapi}; do
      rm -rf "${d}/.venv"
      "${python}" -m venv --without-pip "${d}/.venv"
      # The measuring machine has no index: pip itself comes from the interpreter's own.
      "${python}" -m pip --python "${d}/.venv/bin/python" install -q --no-index --no-deps \
        --find-links "${out}/wheels" -r "${d}/requirements.txt"
    done
  fi
  hack/local-user.sh
  # Targets run as gauntlet-target when started by root: it must reach the checkout.
  d="${ROOT}"; while [[ "${d}" != / ]]; do chmod o+x "${d}"; d=$(dirname "${d}"); done
  chmod -R o+rX "${ROOT}/targets" "${ROOT}/hack/reference"
  echo "unpacked: run with PATH=${ROOT}/bin:\$PATH LD_LIBRARY_PATH=${ROOT}/${out}/lib and -skip-install" >&2
}

case "${1:-}" in
  pack)
    case "${2:-}" in
      generator) pack_generator ;;
      reference) pack_reference ;;
      *) echo "usage: hack/bench-bundle.sh pack generator|reference" >&2; exit 2 ;;
    esac ;;
  unpack) unpack ;;
  *) echo "usage: hack/bench-bundle.sh pack generator|reference | unpack" >&2; exit 2 ;;
esac
du -sh "${out}" >&2
