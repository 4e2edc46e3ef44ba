#!/usr/bin/env bash
# Writes the kubelet and kube-proxy configurations of the lab (.cache/lab/run/).
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "${LAB_RUN}" "${LAB_LOGS}/pods"
# Pods with dnsPolicy Default get this file: the lab has no resolver outside.
echo "nameserver ${LAB_DNS_IP}" > "${LAB_RUN}/resolv.conf"
cat > "${LAB_RUN}/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This host is cgroup v1 (hybrid): kubelet 1.35+ refuses it unless told.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: ${LAB_CGROUP}
containerRuntimeEndpoint: unix://${LAB_CONTAINERD_SOCK}
podLogsDir: ${LAB_LOGS}/pods
address: ${LAB_NODE_IP}
readOnlyPort: 0
tlsCertFile: ${LAB_PKI}/kubelet-serving.crt
tlsPrivateKeyFile: ${LAB_PKI}/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: ${LAB_PKI}/ca.crt}
authorization: {mode: Webhook}
clusterDNS: [${LAB_DNS_IP}]
clusterDomain: cluster.local
resolvConf: ${LAB_RUN}/resolv.conf
failSwapOn: false
hairpinMode: hairpin-veth
serializeImagePulls: false
# The images are built here and never pulled: keep them however full the disk is.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
# Absolute, not a share of the disk: 1% of a large, nearly full disk is gigabytes, and an
# eviction then takes the sandbox image with it (containerd 1.6 cannot pin it), so no pod
# starts again. Below these the lab is out of disk anyway.
evictionHard: {memory.available: "200Mi", nodefs.available: "512Mi", imagefs.available: "512Mi"}
syncFrequency: 10s
fileCheckFrequency: 10s
YAML
cat > "${LAB_RUN}/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: ${LAB_PKI}/kube-proxy.kubeconfig}
hostnameOverride: ${LAB_NAME}
mode: iptables
clusterCIDR: ${LAB_POD_CIDR}
bindAddress: ${LAB_NODE_IP}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
# Leave the kernel's conntrack limits and timeouts alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
YAML
