#!/usr/bin/env bash
# Signs or verifies an OCI artifact (the chart, an image) by digest with a local cosign key
# pair, offline: no transparency log, no Fulcio certificate, no TUF signing config. The
# release workflow signs keyless (.github/workflows/release.yml); this is the local-key path,
# for a lab's own registry (docs/releases.md).
# Usage: hack/sign.sh sign REF KEY        (COSIGN_PASSWORD: the private key's password)
#        hack/sign.sh verify REF PUBKEY   (prints the verified signatures' payloads)
# REF names a digest: REPOSITORY@sha256:HEX. SIGN_PLAIN_HTTP=1 reaches the registry over
# plain HTTP. COSIGN names the cosign binary (default: hack/tools.sh cosign builds it).
set -euo pipefail
usage() {
  echo "usage: hack/sign.sh sign REF KEY | verify REF PUBKEY (REF: REPOSITORY@sha256:HEX)" >&2
  exit 2
}
[[ $# -eq 3 ]] || usage
action="$1" ref="$2" key="$3"
# A tag can move after it is signed: sign and verify what a digest names, never a tag.
if [[ ! "${ref}" =~ @sha256:[0-9a-f]{64}$ ]]; then
  echo "hack/sign.sh: REF ${ref} names no digest (REPOSITORY@sha256:HEX)" >&2
  exit 2
fi
if [[ ! -r "${key}" ]]; then
  echo "hack/sign.sh: key ${key}: not a readable file" >&2
  exit 2
fi
cosign="${COSIGN:-$("$(dirname "$0")/tools.sh" cosign)}"
registry=()
if [[ "${SIGN_PLAIN_HTTP:-}" == 1 ]]; then
  registry=(--allow-http-registry)
fi
case "${action}" in
  sign)
    # --use-signing-config=false and --tlog-upload=false: no sigstore service is asked (the
    # public-good instance's TUF config, Rekor); the signature is stored beside the artifact.
    "${cosign}" sign --yes --key "${key}" --use-signing-config=false --tlog-upload=false \
      "${registry[@]}" "${ref}"
    ;;
  verify)
    # No log to check the signature's inclusion against: the key alone vouches for it.
    "${cosign}" verify --key "${key}" --insecure-ignore-tlog=true "${registry[@]}" "${ref}"
    ;;
  *) usage ;;
esac
