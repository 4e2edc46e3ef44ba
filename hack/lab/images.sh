#!/usr/bin/env bash
# Builds the lab's images here (no Docker): the product's are pushed to the lab's registry,
# the lab's own imported into its containerd, named as the cluster's manifests ask for them. Each recipe runs the same
# program and arguments as the Dockerfile it stands for, as the same non-root user.
# Usage: hack/lab/images.sh GROUP...   (base, targets, gauntlet, operators, flux; or an image name)
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

# The Dockerfile's last stage (the image) and its settings, so that an image runs what the
# Dockerfile runs without a copy of it here.
dockerfile_final() { awk '$1 == "FROM" {n = 0} {s[n++] = $0} END {for (i = 0; i < n; i++) print s[i]}' "targets/$1/Dockerfile"; }
target_user() { dockerfile_final "$1" | awk '$1 == "USER" {u = $2} END {print u}'; }
target_env() { dockerfile_final "$1" | awk '$1 == "ENV" {for (i = 2; i <= NF; i++) print $i}'; }
# target_cmd PRESET: local.start of target.yaml as words; it must be the Dockerfile's CMD
# (both are JSON arrays), or the lab would test another program than the image runs.
target_cmd() {
  local start cmd
  start="$(sed -n 's/^  start: *//p' "targets/$1/target.yaml" | jq -c .)"
  cmd="$(dockerfile_final "$1" | sed -n 's/^CMD *//p' | tail -1 | jq -c .)"
  [[ -n "${start}" && "${start}" == "${cmd}" ]] || { lab_log "$1: local.start ${start} is not the Dockerfile's CMD ${cmd}"; return 1; }
  jq -r 'join(" ")' <<<"${start}"
}
# target_install PRESET: the script of local.install (hack/targets/*.sh) that builds it here.
target_install() { "$(awk '$1 == "install:" {print $2}' "targets/$1/target.yaml")" "targets/$1" >&2; }

# target_commit PRESET DIR: commits DIR as the preset's image, configured from its Dockerfile.
target_commit() {
  local cmd env
  cmd="$(target_cmd "$1")"
  mapfile -t env < <(target_env "$1")
  image_commit "$(target_image "$1")" "$2" "$(target_user "$1")" "/app/$1" "" "${cmd}" "${env[@]}"
}

img_node() {
  local preset="$1" d="${IMAGES_WORK}/$1" node
  target_install "${preset}"
  node="$(readlink -f "$(command -v node)")"
  rootfs_new "${d}"
  rootfs_elf "${d}" "${node}"
  mkdir -p "${d}/usr/local/bin" "${d}/app/_lib" "${d}/app/${preset}"
  ln -sf "${node}" "${d}/usr/local/bin/node"
  cp -a targets/_lib/node "${d}/app/_lib/node"
  # As the Dockerfile copies: package.json, the sources (NestJS: the compiled .build/dist)
  # and node_modules, without the install's stamps.
  # shellcheck disable=SC2046  # the sources, one file name per word (no spaces in them)
  (cd "targets/${preset}" && tar -cf - package.json package-lock.json node_modules $(compgen -G './*.js') \
     $( [[ -d .build/dist ]] && echo .build/dist )) | tar -C "${d}/app/${preset}" -xf -
  # The image's node_modules has no devDependencies (npm ci --omit=dev): NestJS's build tools stay out.
  (cd "${d}/app/${preset}" && npm prune --omit=dev --offline --no-audit --no-fund --loglevel=error >&2)
  rm "${d}/app/${preset}/package-lock.json"
  target_commit "${preset}" "${d}"
}

# img_python PRESET: CPython or PyPy, whichever interpreter local.install built the venv with.
img_python() {
  local preset="$1" d="${IMAGES_WORK}/$1" py base stdlib so f
  target_install "${preset}"
  rootfs_new "${d}"
  py="$(readlink -f "targets/${preset}/.venv/bin/python")"
  base="$("${py}" -c 'import sys; print(sys.base_prefix)')"
  rootfs_elf "${d}" "${py}"
  # The interpreter's standard library, as the python image ships it (without the base
  # interpreter's own site-packages: the venv brings the target's), and its C extensions
  # (CPython's lib-dynload, PyPy's cffi modules).
  stdlib="$("${py}" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
  mkdir -p "${d}${stdlib}"
  tar -C "${stdlib}" --exclude=./site-packages --exclude=./test --exclude='./config-*' \
    --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip -cf - . \
    | tar -C "${d}${stdlib}" -xf -
  mkdir -p "${d}${stdlib}/site-packages"
  while IFS= read -r so; do rootfs_libs "${d}" "${so#"${d}"}"; done < <(find "${d}${stdlib}" -name '*.so' -type f)
  mkdir -p "${d}/app/_lib/python" "${d}/app/${preset}"
  cp -a targets/_lib/python/gauntlet_kit "${d}/app/_lib/python/"
  cp -a "targets/${preset}/.venv" "${d}/app/${preset}/.venv"
  # Compiled extensions of the target's packages (uvloop, pydantic-core...) and what they load.
  while IFS= read -r so; do rootfs_libs "${d}" "${so}"; done \
    < <(find "targets/${preset}/.venv" -name '*.so*' -type f)
  # The venv points at the interpreter by its path here, which the image keeps.
  sed -i "s|^home = .*|home = ${base}/bin|" "${d}/app/${preset}/.venv/pyvenv.cfg"
  for f in "${d}/app/${preset}/.venv/bin"/*; do
    if [[ -L "${f}" && "$(readlink -f "${f}")" == "${py}" ]]; then ln -sfn "${py}" "${f}"; fi
  done
  # Scripts (gunicorn) name the venv's interpreter by its path here; the image's is /app/PRESET.
  grep -lZs "^#!.*/targets/${preset}/\.venv/bin/" "${d}/app/${preset}/.venv/bin"/* \
    | xargs -0 -r sed -i "1s|^#!.*/targets/${preset}/\.venv/bin/|#!/app/${preset}/.venv/bin/|"
  cp "targets/${preset}"/*.py "${d}/app/${preset}/"
  # The CA bundle where the Dockerfile installs ca-certificates (PyPy's ssl needs one to load).
  if dockerfile_final "${preset}" | grep -q ca-certificates; then rootfs_copy "${d}" /etc/ssl/certs/ca-certificates.crt; fi
  "${py}" -m compileall -q "${d}/app/${preset}" "${d}/app/_lib/python" >/dev/null
  target_commit "${preset}" "${d}"
}

# The presets that local.install builds with node.sh, python.sh or pypy.sh; the others'
# recipes are written above.
# BEGIN GENERATED presets-recipes: make generate writes these lines from targets/*/target.yaml (hack/presets)
img_node-connect() { img_node node-connect; }
img_node-express() { img_node node-express; }
img_node-fastify() { img_node node-fastify; }
img_node-nestjs() { img_node node-nestjs; }
img_pypy-flask() { img_python pypy-flask; }
img_pypy-tornado() { img_python pypy-tornado; }
img_python-fastapi() { img_python python-fastapi; }
img_python-flask() { img_python python-flask; }
img_python-flask-eventlet() { img_python python-flask-eventlet; }
img_python-starlette() { img_python python-starlette; }
# END GENERATED presets-recipes

# Every preset (each folder of targets/ with a target.yaml): one without a recipe fails here.
img_targets() {
  local t s
  for t in targets/*/target.yaml; do
    t="${t#targets/}" && t="${t%/target.yaml}" && s="${SECONDS}"
    "img_${t}"
    lab_log "image of ${t}: $((SECONDS - s)) s"
  done
}

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
  # Each lab start pulls the manager through the chart's reference: a real pull, never a copy
  # containerd kept from an earlier run.
  lab_ctr -n k8s.io images rm "$(lab_registry_ref "${ref}")" >/dev/null 2>&1 || true
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

# Prometheus 3 from its module (hack/lab/prom.sh): what users install, with Kubernetes
# service discovery for the ServiceMonitors.
img_prometheus() {
  local d="${IMAGES_WORK}/prometheus"
  rootfs_new "${d}"
  mkdir -p "${d}/bin" "${d}/prometheus" "${d}/etc/prometheus"
  cp "$("${HERE}/prom.sh")/prometheus" "${d}/bin/prometheus"
  image_commit "gauntlet.local/prometheus:${PROMETHEUS_VERSION}" "${d}" 65534:65534 /prometheus /bin/prometheus ""
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

# --- Flux (test/lab/gitops_test.go), from hack/lab/flux.sh's build --------------------------
# flux_image REF BINARY USER [ENV...]: as Flux's Dockerfiles lay them out (a CA bundle, the
# binary in /usr/local/bin, uid 65534); kustomize-controller's tini, git and gnupg are left
# out: the lab decrypts nothing, and Flux clones with go-git, not a git binary.
flux_image() {
  local ref="$1" bin="$2" user="$3" d="${IMAGES_WORK}/${1##*/}"
  shift 3
  rootfs_new "${d}"
  mkdir -p "${d}/usr/local/bin"
  cp "$("${HERE}/flux.sh")/${bin}" "${d}/usr/local/bin/${bin}"
  rootfs_copy "${d}" /etc/ssl/certs/ca-certificates.crt
  image_commit "${ref}" "${d}" "${user}" / "/usr/local/bin/${bin}" "" "$@"
}
img_flux() {
  flux_image "gauntlet.local/flux-source-controller:${SOURCE_CONTROLLER_VERSION}" source-controller 65534:65534
  flux_image "gauntlet.local/flux-kustomize-controller:${KUSTOMIZE_CONTROLLER_VERSION}" kustomize-controller 65534:65534 GNUPGHOME=/tmp
  flux_image gauntlet.local/flux-gitserver:lab gitserver 65532:65532
}

for group in "$@"; do
  case "${group}" in
    base) img_pause; img_busybox ;;
    cluster) img_coredns ;;
    operators) img_k6-starter; img_cnpg; img_k6-operator; img_prometheus-operator; img_prometheus; img_postgresql ;;
    targets) img_targets ;;
    *) "img_${group}" ;;
  esac
done
