#!/usr/bin/env bash
# Writes the lab's containerd configuration and CNI network (.cache/lab/run/).
# containerd has its own root, state and socket (it is not the system's); its CRI plugin
# runs pods with runc on the lab bridge. What this host needs (docs/lab.md):
# restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE; runc otherwise fails with
# "can't get final child's PID from pipe"), Debian's CNI path, a sandbox image built here.
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "${LAB_RUN}/cni" "${LAB_CONTAINERD_STATE}" "${LAB_RUN}/certs.d/${LAB_REGISTRY}"
cat > "${LAB_RUN}/certs.d/${LAB_REGISTRY}/hosts.toml" <<TOML
server = "http://${LAB_REGISTRY}"
[host."http://${LAB_REGISTRY}"]
  capabilities = ["pull", "resolve"]
TOML
cat > "${LAB_RUN}/containerd.toml" <<TOML
version = 2
root = "${LAB_CONTAINERD_ROOT}"
state = "${LAB_CONTAINERD_STATE}"
disabled_plugins = [
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing",
]

[grpc]
  address = "${LAB_CONTAINERD_SOCK}"
[ttrpc]
  address = "${LAB_CONTAINERD_SOCK}.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "${LAB_STATE}/containerd-opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "gauntlet.local/pause:lab"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        # runc's state beside containerd's, not in the system's /run/containerd/runc.
        Root = "${LAB_RUN}/runc"
  # The lab's registry speaks plain HTTP (certs.d/<host>/hosts.toml below).
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "${LAB_RUN}/certs.d"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${LAB_RUN}/cni"
    max_conf_num = 1
TOML

# The pod network: a bridge inside the lab's namespace, no masquerading (nothing leaves).
cat > "${LAB_RUN}/cni/10-gauntlet-lab.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "gauntlet-lab",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "${LAB_BRIDGE}",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "${LAB_RUN}/cni-ipam",
        "ranges": [[{"subnet": "${LAB_POD_CIDR}", "gateway": "${LAB_POD_GW}"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
JSON
