#!/usr/bin/env bash
# The Debian packages the lab runs (containerd, runc, the CNI plugins) and reads the host with
# (iptables-save, nft, conntrack): installed before anything looks at the host, so a fresh
# machine's first `make lab-test` can record the host's state before the lab starts.
# Idempotent (hack/apt.sh skips what is installed).
set -euo pipefail
"$(cd "$(dirname "$0")/.." && pwd)/apt.sh" containerd runc containernetworking-plugins umoci iptables nftables conntrack \
  busybox-static curl jq
