# shellcheck shell=bash
# Building OCI images without Docker (sourced by hack/lab/images.sh): a root filesystem is
# assembled in a directory from this machine's files (binaries built here, Debian packages
# installed by hack/ scripts, with the shared libraries each binary links), then made an
# OCI image with umoci, then pushed to the lab's registry (the product's images) or imported
# into the lab's containerd (the lab's own) under the name the cluster asks for. An image is
# rebuilt only when its root filesystem or configuration changed (the sha256 of both: the
# imported image's gauntlet.dev/input label, or a file beside a pushed image's layout).
IMAGES_WORK="${LAB_STATE}/images"

# rootfs_new DIR: an empty root with the users the images run as and a /tmp.
rootfs_new() {
  local d="$1"
  rm -rf "${d}"
  mkdir -p "${d}/etc" "${d}/tmp" "${d}/app"
  chmod 1777 "${d}/tmp"
  cat > "${d}/etc/passwd" <<PW
root:x:0:0:root:/root:/sbin/nologin
postgres:x:26:26:postgres:/var/lib/postgresql:/bin/sh
bench:x:1000:1000:bench:/app:/sbin/nologin
bench10001:x:10001:10001:bench:/app:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
PW
  cat > "${d}/etc/group" <<GR
root:x:0:
postgres:x:26:
bench:x:1000:
bench10001:x:10001:
nonroot:x:65532:
nogroup:x:65534:
GR
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "${d}/etc/nsswitch.conf"
}

# rootfs_copy DIR PATH...: copies files or folders (symlinks kept) at the same paths.
rootfs_copy() {
  local d="$1" p
  shift
  # From / with relative paths: coreutils 9.1's cp -a --parents fails on absolute ones
  # ("cp: 'usr/share/postgresql': No such file or directory").
  for p in "$@"; do (cd / && cp -a --parents "${p#/}" "${d}/"); done
}

# rootfs_elf DIR FILE...: copies executables, at their paths, with their shared libraries.
rootfs_elf() {
  local d="$1" f
  shift
  for f in "$@"; do
    cp -L --parents "${f}" "${d}/"
    rootfs_libs "${d}" "${f}"
  done
}

# rootfs_libs DIR FILE: copies the shared libraries FILE loads (and the loader).
rootfs_libs() {
  local d="$1" lib
  for lib in $(ldd "$2" 2>/dev/null | awk '/=> \// {print $3} /^\t\// {print $1}'); do
    # A library inside the checkout (a wheel's bundled .libs) comes with its package.
    [[ "${lib}" == "${LAB_ROOT}/"* ]] && continue
    [[ -e "${d}${lib}" ]] || cp -L --parents "${lib}" "${d}/"
  done
}

# rootfs_busybox DIR: /bin/sh and the usual tools from busybox-static.
rootfs_busybox() {
  local d="$1" a
  mkdir -p "${d}/bin"
  cp /bin/busybox "${d}/bin/busybox"
  for a in sh cat cp dirname echo env grep ls mkdir mv rm sed sleep tar test true false id wc head tail; do
    ln -sf busybox "${d}/bin/${a}"
  done
}

# lab_registry_ref REF: where the lab's registry holds one of the product's images.
lab_registry_ref() { echo "${LAB_REGISTRY}/${1#ghcr.io/}"; }

# image_commit REF DIR USER WORKDIR ENTRYPOINT CMD [ENV...]: ENTRYPOINT and CMD are
# space-separated word lists ("" for none). The product's own images (ghcr.io/gauntlet-bench/,
# what the chart deploys) are pushed to the lab's registry, which containerd pulls them from;
# the lab's own (operators, k6, pause, busybox) are imported into containerd as REF.
# DIR is removed once committed (each build assembles it anew): some 2 GB of root filesystems
# the disk need not hold while the lab runs.
image_commit() {
  local ref="$1" d="$2" user="$3" wd="$4" ep="$5" cmd="$6"
  shift 6
  local name="${ref##*/}" input have layout w args=() pushed=""
  name="${name//:/_}"
  [[ "${ref}" == ghcr.io/gauntlet-bench/* ]] && pushed="$(lab_registry_ref "${ref}")"
  # Copied parents (such as /root of a pyenv interpreter) must not lock the user out.
  find "${d}" -type d -exec chmod a+rx {} +
  input="$( { (cd "${d}" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - .) | sha256sum;
              echo "import-by-base-name|${user}|${wd}|${ep}|${cmd}|$*"; } | sha256sum | cut -d' ' -f1)"
  layout="${IMAGES_WORK}/${name}.oci"
  if [[ -n "${pushed}" ]]; then
    have="$(cat "${layout}.input" 2>/dev/null || true)"
  else
    have="$(lab_ctr -n k8s.io images ls "name==${ref}" 2>/dev/null | awk 'NR > 1 {print $NF}' | tr ',' '\n' \
            | sed -n 's/^gauntlet.dev\/input=//p')"
  fi
  if [[ "${have}" == "${input}" ]] && [[ -z "${pushed}" || -d "${layout}" ]]; then
    # The registry keeps manifests in memory: each start pushes them again (blobs it has stay).
    [[ -z "${pushed}" ]] || "${LAB_BIN}/registry" push "${layout}" "${ref##*:}" "${pushed}"
    rm -rf "${d}"
    return 0
  fi
  rm -rf "${layout}" "${layout}.tar" "${layout}.input"
  # The layout's tag is the reference's tag, and --base-name its repository: ctr then names
  # the import REF and nothing else. (With --index-name it also adds import-<date>:<tag>,
  # which the CRI plugin keeps resolving the image to after that name is deleted.)
  umoci init --layout "${layout}"
  umoci new --image "${layout}:${ref##*:}"
  umoci insert --image "${layout}:${ref##*:}" "${d}" / >/dev/null
  args=(--config.user "${user}" --config.workingdir "${wd}" --clear=config.env --clear=config.entrypoint --clear=config.cmd)
  for w in ${ep}; do args+=(--config.entrypoint "${w}"); done
  for w in ${cmd}; do args+=(--config.cmd "${w}"); done
  args+=(--config.env "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
  for w in "$@"; do args+=(--config.env "${w}"); done
  umoci config --image "${layout}:${ref##*:}" "${args[@]}"
  if [[ -n "${pushed}" ]]; then
    # A stale copy under the same name would keep IfNotPresent from pulling the new one.
    lab_ctr -n k8s.io images rm "${pushed}" "${ref}" >/dev/null 2>&1 || true
    "${LAB_BIN}/registry" push "${layout}" "${ref##*:}" "${pushed}"
    echo "${input}" > "${layout}.input"
    rm -rf "${d}"
    lab_log "image ${pushed} built and pushed"
    return 0
  fi
  tar -C "${layout}" -cf "${layout}.tar" .
  lab_ctr -n k8s.io images rm "${ref}" >/dev/null 2>&1 || true
  lab_ctr -n k8s.io images import --base-name "${ref%:*}" "${layout}.tar" >/dev/null
  # (The list is read whole first: grep -q stopping early would fail the pipe under pipefail.)
  w="$(lab_ctr -n k8s.io images ls -q)"
  grep -qx "${ref}" <<<"${w}" || { lab_log "import of ${ref} named no such image"; return 1; }
  lab_ctr -n k8s.io images label "${ref}" "gauntlet.dev/input=${input}" >/dev/null
  rm -rf "${layout}" "${layout}.tar" "${d}"
  lab_log "image ${ref} built"
}
