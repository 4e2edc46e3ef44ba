#!/usr/bin/env bash
# The lab's certificates (idempotent): a CA, the API server's serving and kubelet-client
# certificates, a client certificate per component, the service-account key pair and a
# kubeconfig per client. Kept under .cache/lab/pki; regenerated only when missing.
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "${LAB_PKI}"
cd "${LAB_PKI}"

[[ -f ca.crt ]] || {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
    -subj "/CN=gauntlet-lab-ca" 2>/dev/null
}
# cert NAME SUBJECT [SAN]: a key and a certificate signed by the lab CA.
cert() {
  local name="$1" subj="$2" san="${3:-}"
  [[ -f "${name}.crt" ]] && return 0
  openssl req -newkey rsa:2048 -nodes -keyout "${name}.key" -out "${name}.csr" -subj "${subj}" 2>/dev/null
  local ext="${name}.ext"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [[ -n "${san}" ]]; then
      echo "extendedKeyUsage=serverAuth,clientAuth"
      echo "subjectAltName=${san}"
    else
      echo "extendedKeyUsage=clientAuth"
    fi
  } > "${ext}"
  openssl x509 -req -in "${name}.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
    -out "${name}.crt" -days 3650 -extfile "${ext}" 2>/dev/null
  rm -f "${name}.csr" "${ext}"
}
cert apiserver "/CN=kube-apiserver" \
  "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:${LAB_NODE_IP},IP:${LAB_API_SERVICE_IP}"
cert kubelet-serving "/CN=${LAB_NAME}" "DNS:${LAB_NAME},DNS:localhost,IP:127.0.0.1,IP:${LAB_NODE_IP}"
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
cert admin "/O=system:masters/CN=gauntlet-lab-admin"
cert kubelet "/O=system:nodes/CN=system:node:${LAB_NAME}"
cert kube-controller-manager "/CN=system:kube-controller-manager"
cert kube-scheduler "/CN=system:kube-scheduler"
cert kube-proxy "/CN=system:kube-proxy"
[[ -f sa.key ]] || {
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
}

# kubeconfig NAME SERVER: a kubeconfig that authenticates with NAME's certificate.
kubeconfig() {
  local name="$1" server="$2" file="${LAB_PKI}/${1}.kubeconfig"
  cat > "${file}" <<KC
apiVersion: v1
kind: Config
clusters:
- name: ${LAB_NAME}
  cluster:
    server: ${server}
    certificate-authority: ${LAB_PKI}/ca.crt
users:
- name: ${name}
  user:
    client-certificate: ${LAB_PKI}/${name}.crt
    client-key: ${LAB_PKI}/${name}.key
contexts:
- name: ${LAB_NAME}
  context: {cluster: ${LAB_NAME}, user: ${name}}
current-context: ${LAB_NAME}
KC
}
for c in kubelet kube-controller-manager kube-scheduler kube-proxy; do
  kubeconfig "${c}" "https://127.0.0.1:${LAB_API_PORT}"
done
kubeconfig admin "https://${LAB_NODE_IP}:${LAB_API_PORT}"
cp "${LAB_PKI}/admin.kubeconfig" "${LAB_KUBECONFIG}"
