# shellcheck shell=bash
# Process and state helpers of the lab (sourced by hack/lab/*.sh after env.sh).
# Every daemon runs in the lab's network namespace (nsenter --net only: the mount namespace
# stays the host's, so kubelet's volume mounts are the ones containerd sees), in its own
# session, with its pid in .cache/lab/run/<name>.pid and its log in .cache/lab/logs/.
LAB_DAEMONS=(registry containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)

lab_start() {
  local name="$1"
  shift
  mkdir -p "${LAB_RUN}" "${LAB_LOGS}"
  nsenter --net="${LAB_NETNS}" -- setsid "$@" >"${LAB_LOGS}/${name}.log" 2>&1 </dev/null &
  echo $! > "${LAB_RUN}/${name}.pid"
  lab_log "started ${name} (pid $!)"
}

# lab_pid NAME: the daemon's pid, when it is still the process this lab started.
lab_pid() {
  local f="${LAB_RUN}/$1.pid" pid
  [[ -f "${f}" ]] || return 1
  pid="$(cat "${f}")"
  [[ -d "/proc/${pid}" ]] || return 1
  # A recycled pid must not be taken for ours: it has to sit in the lab's namespace.
  [[ "$(readlink "/proc/${pid}/ns/net")" == "$(lab_netns_id)" ]] || return 1
  echo "${pid}"
}

lab_netns_id() { nsenter --net="${LAB_NETNS}" -- readlink /proc/self/ns/net 2>/dev/null; }

# A lab is running once up.sh finished (its ready mark) and every daemon still runs; a
# half-started one is not, and up.sh starts it anew.
lab_running() {
  [[ -e "${LAB_NETNS}" && -f "${LAB_RUN}/ready" ]] || return 1
  local d
  for d in "${LAB_DAEMONS[@]}"; do lab_pid "${d}" >/dev/null || return 1; done
}

# lab_wait DESCRIPTION SECONDS COMMAND...: retries COMMAND until it succeeds.
lab_wait() {
  local what="$1" limit="$2" start
  shift 2
  start=$(date +%s)
  until "$@" >/dev/null 2>&1; do
    if (( $(date +%s) - start > limit )); then
      lab_log "${what}: not ready after ${limit} s; last try:"
      "$@" >&2 || true
      return 1
    fi
    sleep 1
  done
  lab_log "${what}: ready after $(( $(date +%s) - start )) s"
}

lab_kubectl() { "${LAB_K8S_BIN}/kubectl" --kubeconfig "${LAB_KUBECONFIG}" "$@"; }

lab_node_ready() {
  [[ "$(lab_kubectl get node "${LAB_NAME}" \
    -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}

# Both pools the samples name (seed 000, 001, quickstart): the node serves the targets' pool
# (kubernetes.io/arch=amd64, set by the kubelet itself) and the load generators' pool.
lab_node_labels() { echo "gauntlet.dev/pool=loadgen"; }

# The mounted cgroup v1 hierarchies (and the v2 one, when there is one).
lab_cgroup_hierarchies() {
  awk '{for (i = 7; i <= NF; i++) if ($i == "-") {t = $(i + 1); break}
        if (t == "cgroup" || t == "cgroup2") print $5}' /proc/self/mountinfo | sort -u
}

# Pids left after the daemons stop: processes in the lab's cgroups, and containerd shims
# serving the lab's socket (a shim outlives containerd by design).
lab_leftover_pids() {
  local h p
  for h in $(lab_cgroup_hierarchies); do
    [[ -d "${h}${LAB_CGROUP}" ]] || continue
    find "${h}${LAB_CGROUP}" -name cgroup.procs -exec cat {} + 2>/dev/null
  done
  local cmd
  for p in /proc/[0-9]*; do
    cmd="$(tr '\0' ' ' 2>/dev/null < "${p}/cmdline")" || continue
    [[ "${cmd}" == *"-address ${LAB_CONTAINERD_SOCK} "* ]] && basename "${p}"
  done
  true
}

# Mount points under the lab's state directory.
lab_mounts() { awk -v root="${LAB_STATE}/" 'index($5, root) == 1 {print $5}' /proc/self/mountinfo; }

# One lab per machine (its names and addresses are fixed): the owner file says whose it is.
LAB_OWNER_FILE=/run/gauntlet-lab.owner
lab_claim_owner() {
  if [[ -f "${LAB_OWNER_FILE}" && "$(cat "${LAB_OWNER_FILE}")" != "${LAB_STATE}" ]]; then
    lab_log "another lab runs on this machine, from $(cat "${LAB_OWNER_FILE}"): stop it there first"
    return 1
  fi
  echo "${LAB_STATE}" > "${LAB_OWNER_FILE}"
}
lab_owned_or_absent() {
  if [[ -f "${LAB_OWNER_FILE}" && "$(cat "${LAB_OWNER_FILE}")" != "${LAB_STATE}" ]]; then
    lab_log "the lab on this machine belongs to $(cat "${LAB_OWNER_FILE}"); not touching it"
    exit 1
  fi
  if [[ ! -f "${LAB_OWNER_FILE}" && -e "${LAB_NETNS}" ]]; then
    lab_log "${LAB_NETNS} exists but no lab claims it; not touching it"
    exit 1
  fi
}
lab_release_owner() { rm -f "${LAB_OWNER_FILE}"; }

# Host-wide kernel settings the kubelet sets on start (vm.overcommit_memory=1, kernel.panic=10,
# ...; its protectKernelDefaults only turns a difference into a refusal to start): up.sh
# records them before the kubelet starts, down.sh puts back what was there.
LAB_KERNEL_TUNABLES=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops
  kernel/keys/root_maxkeys kernel/keys/root_maxbytes)
lab_record_kernel_tunables() {
  local f="${LAB_RUN}/kernel-tunables-before" k
  [[ -f "${f}" ]] && return 0
  for k in "${LAB_KERNEL_TUNABLES[@]}"; do echo "${k} $(cat "/proc/sys/${k}")"; done > "${f}"
}
lab_restore_kernel_tunables() {
  local f="${LAB_RUN}/kernel-tunables-before" k v
  [[ -f "${f}" ]] || return 0
  while read -r k v; do
    [[ "$(cat "/proc/sys/${k}")" == "${v}" ]] || echo "${v}" > "/proc/sys/${k}"
  done < "${f}"
}

# /run/netns: `ip netns add` makes it a shared bind mount of itself the first time and
# `ip netns del` leaves that mount; down.sh undoes what the lab made (the mount, the folder).
lab_record_netns_dir() {
  local was=absent
  [[ -d /run/netns ]] && was=folder
  mountpoint -q /run/netns 2>/dev/null && was=mountpoint
  echo "${was}" > "${LAB_RUN}/netns-dir"
}
lab_clean_netns_dir() {
  local was
  was="$(cat "${LAB_RUN}/netns-dir" 2>/dev/null)" || return 0
  [[ "${was}" != mountpoint && -d /run/netns && -z "$(ls -A /run/netns)" ]] || return 0
  while mountpoint -q /run/netns; do umount /run/netns || umount -l /run/netns; done
  [[ "${was}" == absent ]] && rmdir /run/netns
  true
}

# Host paths the lab's components write outside .cache/lab: the kubelet's container log
# links and device-plugin socket (fixed paths), the CNI result cache of go-cni,
# containerd shims' sockets, libmount's table folder (the kubelet runs mount). up.sh records which
# existed before; down.sh removes what the lab put there, and a folder only if it made it.
LAB_HOST_PATHS=(/var/log/containers /var/lib/cni /run/containerd /var/lib/kubelet /run/mount)
lab_record_host_paths() {
  local p
  for p in "${LAB_HOST_PATHS[@]}" $(lab_cgroup_hierarchies | sed 's|$|/k8s.io|'); do
    [[ -e "${p}" ]] && echo "${p}"
  done > "${LAB_RUN}/host-paths-before"
  true
}
lab_clean_host_paths() {
  local before="${LAB_RUN}/host-paths-before" p l
  # Log links that point into the lab's pod logs.
  for l in /var/log/containers/*; do
    [[ -L "${l}" && "$(readlink "${l}")" == "${LAB_LOGS}/"* ]] && rm -f "${l}"
  done
  rm -rf /var/lib/cni/results/gauntlet-lab-* 2>/dev/null || true
  # containerd's own cgroup for containers outside the CRI (ctr run) is k8s.io.
  for p in "${LAB_HOST_PATHS[@]}" $(lab_cgroup_hierarchies | sed 's|$|/k8s.io|'); do
    [[ -e "${p}" ]] || continue
    if [[ -f "${before}" ]] && ! grep -qx "${p}" "${before}"; then
      # The lab made it: whatever is inside is the lab's (no other containerd or kubelet ran).
      case "${p}" in
        /run/containerd | /var/lib/kubelet | /run/mount) rm -rf --one-file-system "${p}" ;;
        */k8s.io) find "${p}" -depth -type d -exec rmdir {} \; 2>/dev/null || true ;;
        *) find "${p}" -depth -type d -empty -delete 2>/dev/null || true ;;
      esac
    fi
  done
  true
}
