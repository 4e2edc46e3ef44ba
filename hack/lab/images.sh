#!/usr/bin/env bash
# Builds the lab's images here (no Docker, no registry) and imports them into the lab's
# containerd, named as the cluster's manifests ask for them. Each recipe runs the same
# program and arguments as the Dockerfile it stands for, as the same non-root user.
# Usage: hack/lab/images.sh GROUP...   (base, targets, gauntlet, operators; or an image name)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
source "${HERE}/image-lib.sh"
cd "${LAB_ROOT}"
mkdir -p "${IMAGES_WORK}"

# target_image PRESET: the image reference its target.yaml names.
target_image() { awk '$1 == "image:" {print $2}' "targets/$1/target.yaml"; }

img_pause() {
  local d="${IMAGES_WORK}/pause"
  rootfs_new "${d}"
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${d}/pause" ./hack/lab/pause
  image_commit gauntlet.local/pause:lab "${d}" 65535:65535 / /pause ""
}

img_coredns() {
  local d="${IMAGES_WORK}/coredns"
  rootfs_new "${d}"
  cp "$("${HERE}/gobuild.sh" coredns github.com/coredns/coredns "${COREDNS_VERSION}" github.com/coredns/coredns)" "${d}/coredns"
  image_commit "gauntlet.local/coredns:${COREDNS_VERSION}" "${d}" 65532:65532 / /coredns ""
}

# --- targets: the Dockerfile's final stage, from what hack/targets/*.sh build here ----------
img_go-nethttp() {
  local d="${IMAGES_WORK}/go-nethttp"
  hack/targets/go.sh targets/go-nethttp
  rootfs_new "${d}"
  mkdir -p "${d}/app/.build"
  cp targets/go-nethttp/.build/server "${d}/app/.build/server"
  image_commit "$(target_image go-nethttp)" "${d}" 65532:65532 /app "" ".build/server" PORT=8080
}

img_cpp-epoll() {
  local d="${IMAGES_WORK}/cpp-epoll"
  hack/targets/cpp.sh targets/cpp-epoll
  rootfs_new "${d}"
  mkdir -p "${d}/app/.build"
  cp targets/cpp-epoll/.build/server "${d}/app/.build/server"
  rootfs_elf "${d}" "$(pwd)/targets/cpp-epoll/.build/server"
  rm -rf "${d:?}$(pwd)"
  image_commit "$(target_image cpp-epoll)" "${d}" 10001:10001 /app "" ".build/server" PORT=8080
}

img_nginx() {
  local d="${IMAGES_WORK}/nginx"
  hack/targets/nginx.sh targets/nginx >/dev/null
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  rootfs_elf "${d}" /usr/sbin/nginx
  [[ -d /usr/lib/nginx ]] && rootfs_copy "${d}" /usr/lib/nginx
  rootfs_copy "${d}" /etc/nginx/mime.types
  cp targets/nginx/nginx.conf.in targets/nginx/start.sh "${d}/app/"
  image_commit "$(target_image nginx)" "${d}" 10001:10001 /app "" "./start.sh" PORT=8080
}

img_node() {
  local preset="$1" user="$2" d="${IMAGES_WORK}/$1"
  hack/targets/node.sh "targets/${preset}" >/dev/null
  rootfs_new "${d}"
  rootfs_elf "${d}" "$(readlink -f "$(command -v node)")"
  mkdir -p "${d}/usr/local/bin" "${d}/app/_lib" "${d}/app/${preset}"
  ln -sf "$(readlink -f "$(command -v node)")" "${d}/usr/local/bin/node"
  cp -a targets/_lib/node "${d}/app/_lib/node"
  (cd "targets/${preset}" && tar --exclude=./.build/.lock -cf - package.json ./*.js node_modules $( [[ -d .build ]] && echo .build )) \
    | tar -C "${d}/app/${preset}" -xf -
  image_commit "$(target_image "${preset}")" "${d}" "${user}" "/app/${preset}" "" "node main.js" NODE_ENV=production
}
img_node-fastify() { img_node node-fastify 1000:1000; }

img_python() {
  local preset="$1" d="${IMAGES_WORK}/$1" py base
  hack/targets/python.sh "targets/${preset}"
  rootfs_new "${d}"
  py="$(readlink -f "targets/${preset}/.venv/bin/python")"
  base="$("${py}" -c 'import sys; print(sys.base_prefix)')"
  rootfs_elf "${d}" "${py}"
  # The interpreter's standard library, as the python image ships it.
  rootfs_copy "${d}" "$("${py}" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
  rootfs_copy "${d}" "$("${py}" -c 'import sysconfig; print(sysconfig.get_path("platstdlib"))')" 2>/dev/null || true
  for so in $(find "${d}$("${py}" -c 'import sysconfig; print(sysconfig.get_path("platstdlib"))')/lib-dynload" -name '*.so' 2>/dev/null); do
    rootfs_elf "${d}" "${so#"${d}"}"
  done
  mkdir -p "${d}/app/_lib/python" "${d}/app/${preset}"
  cp -a targets/_lib/python/gauntlet_kit "${d}/app/_lib/python/"
  cp -a "targets/${preset}/.venv" "${d}/app/${preset}/.venv"
  # The venv points at the interpreter by its path here, which the image keeps.
  sed -i "s|^home = .*|home = ${base}/bin|" "${d}/app/${preset}/.venv/pyvenv.cfg"
  cp "targets/${preset}"/*.py "${d}/app/${preset}/"
  "${py}" -m compileall -q "${d}/app/${preset}" "${d}/app/_lib/python" >/dev/null
  image_commit "$(target_image "${preset}")" "${d}" 65532:65532 "/app/${preset}" "" ".venv/bin/python server.py" PYTHONUNBUFFERED=1
}
img_python-fastapi() { img_python python-fastapi; }

for group in "$@"; do
  case "${group}" in
    base) img_pause; img_coredns ;;
    targets) for t in go-nethttp nginx cpp-epoll node-fastify python-fastapi; do "img_${t}"; done ;;
    *) "img_${group}" ;;
  esac
done
