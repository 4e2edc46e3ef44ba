#!/usr/bin/env bash
# make lab-up: a real single-node Kubernetes on this machine (idempotent: a running lab is
# left as it is). Binaries and images are cached under bin/lab and .cache/lab; the cluster
# state (etcd, pods) is new on every start. Prints the admin kubeconfig path.
#   hack/lab/up.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"

if lab_running; then
  lab_log "already running (${LAB_KUBECONFIG})"
  echo "${LAB_KUBECONFIG}"
  exit 0
fi
# down.sh below reads iptables and containerd's state: the packages come first.
"${HERE}/packages.sh"
# A half-started or crashed lab: clear it first, so every start begins from nothing.
"${HERE}/down.sh" >&2
lab_claim_owner

"${HERE}/binaries.sh" core
"${HERE}/pki.sh"
mkdir -p "${LAB_RUN}" "${LAB_LOGS}" "${LAB_CONTAINERD_ROOT}" "${LAB_KUBELET_ROOT}"
date +%s > "${LAB_RUN}/started"
lab_record_host_paths
lab_record_kernel_tunables
lab_record_netns_dir

# --- network: the lab's namespace, its link to the host, its forwarding -----------------
ip netns add "${LAB_NAME}"
ip link add "${LAB_VETH_HOST}" type veth peer name "${LAB_VETH_NODE}" netns "${LAB_NAME}"
ip addr add "${LAB_HOST_IP}/30" dev "${LAB_VETH_HOST}"
ip link set "${LAB_VETH_HOST}" up
lab_ns ip addr add "${LAB_NODE_IP}/30" dev "${LAB_VETH_NODE}"
lab_ns ip link set "${LAB_VETH_NODE}" up
lab_ns ip link set lo up
# The node's own processes (kube-apiserver calling webhooks, the kubelet's probes) reach
# Services too: their packets need a route before kube-proxy's OUTPUT rules rewrite them to a
# pod. The pod bridge holds it (made here; the CNI bridge plugin takes it as it finds it), so
# an address no rule rewrites stays on the bridge, never out. (No dummy device here: the
# kernel has no dummy driver.)
lab_ns ip link add "${LAB_BRIDGE}" type bridge
lab_ns ip link set "${LAB_BRIDGE}" up
lab_ns ip route add "${LAB_SERVICE_CIDR}" dev "${LAB_BRIDGE}"
# Per-namespace settings: the host's own ip_forward and bridge settings stay as they are.
lab_ns sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1

# --- cgroups: every pod lives under /gauntlet-lab in each hierarchy ---------------------
for h in $(lab_cgroup_hierarchies); do mkdir -p "${h}${LAB_CGROUP}"; done
# A new cpuset cgroup starts with no CPUs and no memory nodes: give it the machine's.
for f in cpuset.cpus cpuset.mems; do
  [[ -f "/sys/fs/cgroup/cpuset/${f}" ]] && cat "/sys/fs/cgroup/cpuset/${f}" > "/sys/fs/cgroup/cpuset${LAB_CGROUP}/${f}"
done

# --- the registry the product's images and chart are pushed to ----------------------------
(cd "${LAB_ROOT}" && CGO_ENABLED=0 go build -o "${LAB_BIN}/registry" ./hack/lab/registry)
lab_start registry "${LAB_BIN}/registry" serve "${LAB_REGISTRY}" "${LAB_REGISTRY_BLOBS}"
lab_wait "registry" 30 curl -fsS "http://${LAB_REGISTRY}/v2/"

# --- containerd -----------------------------------------------------------------------
"${HERE}/containerd-config.sh"
lab_start containerd containerd --config "${LAB_RUN}/containerd.toml"
lab_wait "containerd" 60 lab_ctr version
# The kubelet's cAdvisor finds containers through containerd at the fixed path
# /run/containerd/containerd.sock (its --containerd flag is not the kubelet's); without it
# /metrics/cadvisor has pod cgroups only, no container series. No other containerd runs here.
if [[ -e /run/containerd/containerd.sock && "$(readlink /run/containerd/containerd.sock)" != "${LAB_CONTAINERD_SOCK}" ]]; then
  lab_log "/run/containerd/containerd.sock belongs to another containerd: cAdvisor will see pods, not containers"
else
  mkdir -p /run/containerd
  ln -sfn "${LAB_CONTAINERD_SOCK}" /run/containerd/containerd.sock
fi
"${HERE}/images.sh" base

# --- control plane ----------------------------------------------------------------------
P="${LAB_PKI}"
lab_start etcd "${LAB_ENVTEST_BIN}/etcd" --data-dir "${LAB_ETCD_DATA}" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --unsafe-no-fsync --log-level warn
lab_start kube-apiserver "${LAB_ENVTEST_BIN}/kube-apiserver" \
  --etcd-servers=http://127.0.0.1:2379 --bind-address=0.0.0.0 --secure-port="${LAB_API_PORT}" \
  --advertise-address="${LAB_NODE_IP}" --service-cluster-ip-range="${LAB_SERVICE_CIDR}" \
  --client-ca-file="${P}/ca.crt" --tls-cert-file="${P}/apiserver.crt" --tls-private-key-file="${P}/apiserver.key" \
  --kubelet-client-certificate="${P}/apiserver-kubelet-client.crt" --kubelet-client-key="${P}/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="${P}/sa.pub" --service-account-signing-key-file="${P}/sa.key" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --profiling=false --v=1
lab_wait "kube-apiserver" 120 lab_kubectl get --raw /readyz
common=(--kubeconfig="${P}/@.kubeconfig" --authentication-kubeconfig="${P}/@.kubeconfig"
  --authorization-kubeconfig="${P}/@.kubeconfig" --leader-elect=false --bind-address=127.0.0.1)
kcm=("${common[@]//@/kube-controller-manager}")
lab_start kube-controller-manager "${LAB_K8S_BIN}/kube-controller-manager" "${kcm[@]}" \
  --service-account-private-key-file="${P}/sa.key" --root-ca-file="${P}/ca.crt" \
  --use-service-account-credentials=true --cluster-signing-cert-file="${P}/ca.crt" \
  --cluster-signing-key-file="${P}/ca.key" --service-cluster-ip-range="${LAB_SERVICE_CIDR}" \
  --allocate-node-cidrs=false --v=1
sched=("${common[@]//@/kube-scheduler}")
lab_start kube-scheduler "${LAB_K8S_BIN}/kube-scheduler" "${sched[@]}" --v=1

# --- node ---------------------------------------------------------------------------------
"${HERE}/node-config.sh"
lab_start kubelet "${LAB_K8S_BIN}/kubelet" --config="${LAB_RUN}/kubelet.yaml" \
  --kubeconfig="${P}/kubelet.kubeconfig" --root-dir="${LAB_KUBELET_ROOT}" \
  --hostname-override="${LAB_NAME}" --node-ip="${LAB_NODE_IP}" \
  --node-labels="$(lab_node_labels)" --v=1
lab_start kube-proxy "${LAB_K8S_BIN}/kube-proxy" --config="${LAB_RUN}/kube-proxy.yaml" --v=1
lab_wait "node Ready" 180 lab_node_ready

# --- cluster add-ons ----------------------------------------------------------------------
"${HERE}/images.sh" cluster
"${HERE}/addons.sh"
# What the product runs in the lab: the operator, k6, the preset targets.
"${HERE}/images.sh" gauntlet k6 targets
touch "${LAB_RUN}/ready"
lab_log "up in $(( $(date +%s) - $(cat "${LAB_RUN}/started") )) s; KUBECONFIG=${LAB_KUBECONFIG}"
# The kubelet evicts pods below 512Mi free: say what the disk holds, so a failure reads plainly.
free_mib="$(df --output=avail -m "${LAB_STATE}" | tail -1 | tr -d ' ')"
lab_log "disk: ${free_mib} MiB free under ${LAB_STATE}, lab state $(du -sm "${LAB_STATE}" 2>/dev/null | cut -f1) MiB"
(( free_mib >= 4096 )) || lab_log "warning: under 4 GiB free; the lab's databases and logs may run the node out of disk"
echo "${LAB_KUBECONFIG}"
