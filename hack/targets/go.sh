#!/usr/bin/env bash
# Builds a Go target (its own module) into TARGET_DIR/.build/server.
# Idempotent and cached: skipped when the sources, go.mod/go.sum and the Go version are unchanged.
# Usage: hack/targets/go.sh TARGET_DIR
set -euo pipefail
dir=${1:?usage: hack/targets/go.sh TARGET_DIR}
[[ -f "${dir}/go.mod" ]] || { echo "hack/targets/go.sh: ${dir}/go.mod not found" >&2; exit 1; }
command -v go >/dev/null || { echo "hack/targets/go.sh: go is not on PATH" >&2; exit 1; }
cd "${dir}"
mkdir -p .build
# Several runs may build at once: one builds, the others wait and then find the stamp.
exec 9>.build/.lock
flock 9

stamp=.build/.stamp
# Paths are relative to the folder, so the key does not depend on where the clone lives.
want=$({ find . -path ./.build -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print \
          | LC_ALL=C sort | xargs sha256sum; go version; } | sha256sum | cut -d' ' -f1)
if [[ -x .build/server && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  exit 0
fi

echo "hack/targets/go.sh: building ${dir} with $(go version)" >&2
# Same flags as the Dockerfile; -mod=readonly: go.sum must already pin every module.
CGO_ENABLED=0 go build -mod=readonly -trimpath -o .build/server.new .
mv .build/server.new .build/server
echo "${want}" > "${stamp}"
