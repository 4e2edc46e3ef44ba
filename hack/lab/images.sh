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
  CGO_ENABLED=0 go build -ldflags "-s -w" -o "${d}/pause" ./hack/lab/pause
  image_commit gauntlet.local/pause:lab "${d}" 65535:65535 / /pause ""
}

# A shell and the usual tools, for the lab's own test pods.
img_busybox() {
  local d="${IMAGES_WORK}/busybox"
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  for a in nslookup wget nc; do ln -sf busybox "${d}/bin/${a}"; done
  image_commit gauntlet.local/busybox:lab "${d}" 65532:65532 / "" sh
}

img_coredns() {
  local d="${IMAGES_WORK}/coredns"
  rootfs_new "${d}"
  cp "$("${HERE}/ops.sh")/coredns" "${d}/coredns"
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
  rootfs_libs "${d}" targets/cpp-epoll/.build/server
  image_commit "$(target_image cpp-epoll)" "${d}" 10001:10001 /app "" ".build/server" PORT=8080
}

img_nginx() {
  local d="${IMAGES_WORK}/nginx"
  hack/targets/nginx.sh targets/nginx >/dev/null
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  rootfs_elf "${d}" /usr/sbin/nginx
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
  local preset="$1" d="${IMAGES_WORK}/$1" py base stdlib so
  hack/targets/python.sh "targets/${preset}"
  rootfs_new "${d}"
  py="$(readlink -f "targets/${preset}/.venv/bin/python")"
  base="$("${py}" -c 'import sys; print(sys.base_prefix)')"
  rootfs_elf "${d}" "${py}"
  # The interpreter's standard library, as the python image ships it (without the base
  # interpreter's own site-packages: the venv brings the target's), and its C extensions.
  stdlib="$("${py}" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
  mkdir -p "${d}${stdlib}"
  tar -C "${stdlib}" --exclude=./site-packages --exclude=./test --exclude='./config-*' \
    --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip -cf - . \
    | tar -C "${d}${stdlib}" -xf -
  mkdir -p "${d}${stdlib}/site-packages"
  for so in "${d}${stdlib}"/lib-dynload/*.so; do rootfs_libs "${d}" "${so#"${d}"}"; done
  mkdir -p "${d}/app/_lib/python" "${d}/app/${preset}"
  cp -a targets/_lib/python/gauntlet_kit "${d}/app/_lib/python/"
  cp -a "targets/${preset}/.venv" "${d}/app/${preset}/.venv"
  # Compiled extensions of the target's packages (uvloop, pydantic-core...) and what they load.
  while IFS= read -r so; do rootfs_libs "${d}" "${so}"; done \
    < <(find "targets/${preset}/.venv" -name '*.so*' -type f)
  # The venv points at the interpreter by its path here, which the image keeps.
  sed -i "s|^home = .*|home = ${base}/bin|" "${d}/app/${preset}/.venv/pyvenv.cfg"
  ln -sfn "${py}" "${d}/app/${preset}/.venv/bin/python"
  cp "targets/${preset}"/*.py "${d}/app/${preset}/"
  "${py}" -m compileall -q "${d}/app/${preset}" "${d}/app/_lib/python" >/dev/null
  image_commit "$(target_image "${preset}")" "${d}" 65532:65532 "/app/${preset}" "" ".venv/bin/python server.py" PYTHONUNBUFFERED=1
}
img_python-fastapi() { img_python python-fastapi; }

# The operator image (Dockerfile at the repository root): manager and gauntlet, static,
# with each preset's target.yaml and Dockerfile under /targets for --targets-dir.
img_gauntlet() {
  local d="${IMAGES_WORK}/gauntlet" t ref
  rootfs_new "${d}"
  # Static, with the flags make test compiles with (no -trimpath; CGO_ENABLED=0 from the
  # Makefile): the packages come from the tests' build cache instead of compiling again.
  CGO_ENABLED=0 go build -ldflags "-s -w" -o "${d}/" ./cmd/manager ./cmd/gauntlet
  for t in targets/*/; do
    if [[ -f "${t}/target.yaml" ]]; then mkdir -p "${d}/${t}" && cp "${t}/target.yaml" "${t}/Dockerfile" "${d}/${t}"; fi
  done
  ref="$(awk '$1 == "image:" {print $2; exit}' config/manager/manager.yaml)"
  image_commit "${ref}" "${d}" 65532:65532 / /manager ""
}

# k6 as the load generators run it (specs.DefaultK6Image), with the shell k6-operator's
# initializer runs its commands in.
img_k6() {
  local d="${IMAGES_WORK}/k6"
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  mkdir -p "${d}/usr/bin" "${d}/home/k6"
  cp -L "$("${LAB_ROOT}/hack/k6.sh")" "${d}/usr/bin/k6"
  rootfs_libs "${d}" "${d}/usr/bin/k6"
  image_commit docker.io/grafana/k6:1.8.1 "${d}" 12345:12345 /home/k6 /usr/bin/k6 ""
}

# k6-operator's starter: a shell and curl (its default, ghcr.io/grafana/k6-operator:latest-starter,
# would be pulled Always for its :latest tag, and the lab has no registry).
img_k6-starter() {
  local d="${IMAGES_WORK}/k6-starter"
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  rootfs_elf "${d}" /usr/bin/curl
  image_commit gauntlet.local/k6-starter:lab "${d}" 65532:65532 / "" sh
}

# --- the other operators, from their own modules, and what their pods run ------------------
# static_image REF BINARY PATH USER ENTRYPOINT: a binary built by hack/lab/ops.sh alone.
static_image() {
  local ref="$1" bin="$2" path="$3" user="$4" ep="$5" d="${IMAGES_WORK}/${1##*/}"
  rootfs_new "${d}"
  mkdir -p "${d}$(dirname "${path}")"
  cp "$("${HERE}/ops.sh")/${bin}" "${d}${path}"
  image_commit "${ref}" "${d}" "${user}" / "${ep}" ""
}
# As CloudNativePG's Dockerfile lays it out: the manager per architecture under /operator
# (it lists operator/manager_* to learn which architectures it can give instances) and
# /manager linking to this one.
img_cnpg() {
  local d="${IMAGES_WORK}/cloudnative-pg" arch
  arch="$(go env GOARCH)"
  rootfs_new "${d}"
  mkdir -p "${d}/operator"
  cp "$("${HERE}/ops.sh")/cnpg-manager" "${d}/operator/manager_${arch}"
  ln -s "operator/manager_${arch}" "${d}/manager"
  image_commit "gauntlet.local/cloudnative-pg:${CNPG_VERSION}" "${d}" 65532:65532 / /manager ""
}
img_k6-operator() {
  static_image "gauntlet.local/k6-operator:${K6_OPERATOR_VERSION}" k6-operator /manager 65532:65532 /manager
}
img_prometheus-operator() {
  static_image "gauntlet.local/prometheus-operator:${PROMETHEUS_OPERATOR_VERSION}" \
    prometheus-operator /bin/operator 65534:65534 /bin/operator
  static_image "gauntlet.local/prometheus-config-reloader:${PROMETHEUS_OPERATOR_VERSION}" \
    prometheus-config-reloader /bin/prometheus-config-reloader 65534:65534 /bin/prometheus-config-reloader
}

# Debian's Prometheus 2.42 (remote-write receiver and native histograms behind flags).
img_prometheus() {
  local d="${IMAGES_WORK}/prometheus"
  hack/prometheus.sh >/dev/null
  rootfs_new "${d}"
  rootfs_elf "${d}" /usr/bin/prometheus /usr/bin/promtool
  mkdir -p "${d}/bin" "${d}/prometheus" "${d}/etc/prometheus"
  ln -sf /usr/bin/prometheus "${d}/bin/prometheus"
  image_commit gauntlet.local/prometheus:v2.42.0 "${d}" 65534:65534 /prometheus /bin/prometheus ""
}

# PostgreSQL 15 from Debian's packages and PgBouncer from Debian 13's source
# (hack/lab/pgbouncer.sh), as CloudNativePG runs them: postgres tools on PATH (it reads the
# major version from the tag), uid 26, pgbouncer at /usr/bin/pgbouncer (the path its pooler runs).
img_postgresql() {
  local d="${IMAGES_WORK}/postgresql" f bouncer
  "${LAB_ROOT}/hack/apt.sh" postgresql-15
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  for f in /usr/lib/postgresql/15/bin/*; do rootfs_elf "${d}" "${f}"; done
  rootfs_copy "${d}" /usr/share/postgresql/15 /usr/lib/postgresql/15/lib
  for f in /usr/lib/postgresql/15/lib/*.so; do rootfs_libs "${d}" "${f}"; done
  if [[ -d /usr/share/zoneinfo ]]; then rootfs_copy "${d}" /usr/share/zoneinfo; fi
  if [[ -d /usr/lib/locale/C.utf8 ]]; then rootfs_copy "${d}" /usr/lib/locale/C.utf8; fi
  mkdir -p "${d}/usr/local/bin" "${d}/var/lib/postgresql" "${d}/var/run/postgresql"
  for f in "${d}"/usr/lib/postgresql/15/bin/*; do ln -sf "/usr/lib/postgresql/15/bin/$(basename "${f}")" "${d}/usr/local/bin/"; done
  chown 26:26 "${d}/var/lib/postgresql" "${d}/var/run/postgresql"
  image_commit gauntlet.local/postgresql:15 "${d}" 26:26 / "" "postgres" LANG=C.UTF-8

  d="${IMAGES_WORK}/pgbouncer"
  bouncer="$("${HERE}/pgbouncer.sh")"
  rootfs_new "${d}"
  rootfs_busybox "${d}"
  mkdir -p "${d}/usr/bin"
  cp "${bouncer}" "${d}/usr/bin/pgbouncer"
  rootfs_libs "${d}" "${bouncer}"
  image_commit "gauntlet.local/pgbouncer:${bouncer##*-}" "${d}" 998:998 / /usr/bin/pgbouncer ""
}

for group in "$@"; do
  case "${group}" in
    base) img_pause; img_busybox ;;
    cluster) img_coredns ;;
    operators) img_k6-starter; img_cnpg; img_k6-operator; img_prometheus-operator; img_prometheus; img_postgresql ;;
    targets) for t in go-nethttp nginx cpp-epoll node-fastify python-fastapi; do "img_${t}"; done ;;
    *) "img_${group}" ;;
  esac
done
