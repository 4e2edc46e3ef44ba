#!/usr/bin/env bash
# make lab-down: stops the lab and removes everything it made on this machine (processes,
# mounts, network namespace with its interfaces and iptables rules, cgroups, runtime state),
# keeping only the caches (bin/lab, .cache/lab/containerd's images, the registry's blobs,
# .cache/lab/pki).
# Idempotent; touches only what carries the lab's marks: its pid files, its namespace,
# its directories, its cgroup root.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"

lab_owned_or_absent

# stop NAME: TERM, then KILL after 20 s.
stop() {
  local pid
  pid="$(lab_pid "$1")" || { rm -f "${LAB_RUN}/$1.pid"; return 0; }
  kill -TERM "${pid}" 2>/dev/null || true
  for _ in $(seq 1 40); do [[ -d "/proc/${pid}" ]] || break; sleep 0.5; done
  [[ -d "/proc/${pid}" ]] && kill -KILL "${pid}" 2>/dev/null
  rm -f "${LAB_RUN}/$1.pid"
  lab_log "stopped $1"
}

# The kubelet first, so nothing restarts what follows; then the pods' containers through
# containerd (so it deletes their snapshots and records), then containerd itself.
stop kubelet
if lab_pid containerd >/dev/null; then
  for id in $(lab_ctr -n k8s.io tasks ls -q 2>/dev/null); do
    lab_ctr -n k8s.io tasks kill -s SIGKILL "${id}" >/dev/null 2>&1 || true
  done
  sleep 1
  for id in $(lab_ctr -n k8s.io tasks ls -q 2>/dev/null); do
    lab_ctr -n k8s.io tasks delete -f "${id}" >/dev/null 2>&1 || true
  done
  for id in $(lab_ctr -n k8s.io containers ls -q 2>/dev/null); do
    lab_ctr -n k8s.io containers delete "${id}" >/dev/null 2>&1 || true
  done
fi
for d in kube-proxy kube-scheduler kube-controller-manager kube-apiserver etcd containerd registry; do stop "${d}"; done

# Whatever still runs in the lab's cgroups or as a shim of the lab's containerd is the lab's.
for _ in 1 2 3 4 5; do
  pids="$(lab_leftover_pids)"
  [[ -z "${pids}" ]] && break
  # shellcheck disable=SC2086  # one pid per word
  kill -KILL ${pids} 2>/dev/null || true
  sleep 0.5
done

# Mounts under the lab's directories (kubelet volumes, overlay roots, pod netns), deepest first.
for m in $(lab_mounts | sort -r); do umount "${m}" 2>/dev/null || umount -l "${m}"; done

for h in $(lab_cgroup_hierarchies); do
  [[ -d "${h}${LAB_CGROUP}" ]] && find "${h}${LAB_CGROUP}" -depth -type d -exec rmdir {} \;
done

if [[ -e "${LAB_NETNS}" ]]; then
  ip netns del "${LAB_NAME}"
  lab_log "deleted network namespace ${LAB_NAME}"
fi
# The host end of the link goes with its peer; wait for the kernel to finish.
for _ in $(seq 1 20); do ip link show "${LAB_VETH_HOST}" >/dev/null 2>&1 || break; sleep 0.25; done

# The CNI results go-cni caches in /var/lib/cni/results for each pod sandbox (deleted by a CNI
# DEL, which killing the containers skips): by the sandbox ids the CRI plugin kept, then
# those records too (the image store beside them stays).
cri="${LAB_CONTAINERD_ROOT}/io.containerd.grpc.v1.cri"
for d in "${cri}"/sandboxes/*; do
  [[ -d "${d}" ]] && rm -f /var/lib/cni/results/*-"$(basename "${d}")"-*
done
rm -rf "${cri}/sandboxes" "${cri}/containers"
if [[ "$(readlink /run/containerd/containerd.sock 2>/dev/null)" == "${LAB_CONTAINERD_SOCK}" ]]; then
  rm -f /run/containerd/containerd.sock
fi
# umount (libmount) makes /run/mount: the /run/netns mount goes before the host paths.
lab_clean_netns_dir
lab_clean_host_paths
lab_restore_kernel_tunables

# Runtime state; caches (images, certificates, binaries) stay. --one-file-system: never
# follow a mount that survived into a place that is not the lab's.
rm -rf --one-file-system "${LAB_RUN}" "${LAB_KUBELET_ROOT}" "${LAB_STATE}/containerd-opt"
lab_release_owner
