# shellcheck shell=bash disable=SC2034  # the scripts that source this file read its variables
# Names, paths and addresses of the lab (sourced by hack/lab/*.sh).
# The whole lab lives in its own network namespace: its bridge, veth, iptables rules,
# ip_forward and br_netfilter settings are the namespace's, and deleting the namespace
# removes them. Nothing is routed out: the namespace has no default route, and its one
# link to the host is a /30 over which the host reaches the API server.
LAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "${LAB_ROOT}/hack/lab/versions.sh"
LAB_NAME=gauntlet-lab                 # network namespace, node name, cgroup root
LAB_NETNS="/run/netns/${LAB_NAME}"
LAB_VETH_HOST=gl-host                 # host end of the link (host side)
LAB_VETH_NODE=gl-node                 # node end, inside the namespace
LAB_HOST_IP=10.239.255.1              # /30 link between host and node
LAB_NODE_IP=10.239.255.2
LAB_BRIDGE=gl-br0
LAB_POD_CIDR=10.239.0.0/24            # one node, one pod range (CNI host-local)
LAB_POD_GW=10.239.0.1
LAB_SERVICE_CIDR=10.239.16.0/20
LAB_API_SERVICE_IP=10.239.16.1
LAB_DNS_IP=10.239.16.10
LAB_API_PORT=6443
LAB_CGROUP="/${LAB_NAME}"             # kubelet cgroupRoot: kubepods live under it
LAB_VOLUMES=6                         # local PersistentVolumes (addons.sh)
# The lab's OCI registry (hack/lab/registry): on the node's address, so containerd and the pods
# reach it inside the namespace and the host (pushing images and the chart) over the /30.
LAB_REGISTRY="${LAB_NODE_IP}:5000"

LAB_BIN="${LAB_ROOT}/bin/lab"
LAB_K8S_BIN="${LAB_BIN}/k8s/${KUBE_VERSION}"
LAB_ENVTEST_BIN="${LAB_ROOT}/bin/k8s/${KUBE_VERSION}"
LAB_STATE="${LAB_ROOT}/.cache/lab"    # everything the running lab writes
LAB_PKI="${LAB_STATE}/pki"
LAB_RUN="${LAB_STATE}/run"            # pid files, sockets, configs of this run
LAB_LOGS="${LAB_STATE}/logs"
LAB_CONTAINERD_ROOT="${LAB_STATE}/containerd"   # image store: kept between runs
LAB_CONTAINERD_STATE="${LAB_RUN}/containerd"
LAB_CONTAINERD_SOCK="${LAB_RUN}/containerd/containerd.sock"
LAB_KUBELET_ROOT="${LAB_STATE}/kubelet"
LAB_REGISTRY_BLOBS="${LAB_STATE}/registry"   # kept between runs; manifests are pushed anew
LAB_ETCD_DATA="${LAB_RUN}/etcd"
LAB_KUBECONFIG="${LAB_STATE}/admin.kubeconfig"  # for the host: https://LAB_NODE_IP:6443

lab_ns() { nsenter --net="${LAB_NETNS}" -- "$@"; }
lab_ctr() { ctr --address "${LAB_CONTAINERD_SOCK}" "$@"; }
lab_log() { echo "lab: $*" >&2; }
