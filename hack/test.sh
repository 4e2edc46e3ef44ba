#!/usr/bin/env bash
# The test tiers, each runnable by name (make test-unit, test-envtest, test-local, test-lab,
# test-argocd), and `all`, which is make test: the order and what runs beside what are here.
# The long tiers end with a digest of their failures (hack/testdigest): a reader of the
# tail of a failed run sees which assertion failed.
# Usage: hack/test.sh [-n] TIER   TIER: all | unit | envtest | race | local | lab | argocd
#   -n  print the tier's steps (make -n passes it) instead of running them
# GO_TEST_TIMEOUT (40m) and BUILD_GOGC (400) come from the Makefile.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 # one set of build flags for the tests and the lab's builds (Makefile)
timeout="${GO_TEST_TIMEOUT:-40m}"
build_gogc="${BUILD_GOGC:-400}"

# The fast loop: pure tests only; those that start processes or an API server skip under
# -short (testenv.Long). The envtest tier runs all of them in full.
tier_unit() {
  go test -short ./...  # cached results are fine in the fast loop
}

# Every package but the local end-to-end tier (test/local, which judges its rows) and the
# lab's (test/lab, built only with -tags lab), with a real kube-apiserver and etcd.
tier_envtest() {
  # shellcheck disable=SC2046  # one package per word
  KUBEBUILDER_ASSETS="$(hack/envtest-binaries.sh)" go test -count=1 -timeout "${timeout}" -json \
    $(go list ./... | grep -v '/test/local$') | go run ./hack/testdigest -brief
}

# The race detector (cgo on for this tier only) over the packages whose code runs goroutines
# of its own: the engine, the operator's reconcilers and verification jobs, the local mode,
# its process supervision and the wire capture. -short: their pure tests, not the API server's.
# It compiles first at idle priority, in a session and autogroup of its own as
# hack/lab/prebuild.sh does: on a cold cache the race-instrumented Kubernetes libraries are
# minutes of CPU, which the lab beside it must keep. Then the tests run, at normal priority.
tier_race() {
  local pkgs=(./internal/engine/... ./controllers/... ./internal/local/... ./internal/supervise/... ./internal/wire/...)
  # shellcheck disable=SC2016  # the script is bash -c's: "$@" expands there
  CGO_ENABLED=1 setsid -w chrt --idle 0 nice -n 19 bash -c '
    echo 19 > /proc/self/autogroup 2>/dev/null || true
    exec go test -race -count=1 -exec true "$@" > /dev/null' race "${pkgs[@]}"
  CGO_ENABLED=1 go test -race -short -count=1 -timeout "${timeout}" "${pkgs[@]}"
}

# The CLI and every shipped sample through real k6, PostgreSQL and targets (after make deps).
tier_local() {
  go test -count=1 -timeout "${timeout}" -json ./test/local | go run ./hack/testdigest -brief
}

# A real single-node Kubernetes with CloudNativePG, k6-operator and Prometheus, started and
# stopped by the test (docs/lab.md).
tier_lab() {
  make --no-print-directory lab-test
}

# Argo CD's health code pins other Kubernetes libraries: its test is a module of its own.
tier_argocd() {
  (cd test/argocd && go vet ./... && go test -count=1 ./...)
}

# make test. The lab's binaries build at idle priority from the first step while the other
# tiers run (hack/lab/prebuild.sh), then every package's tests (compiled, not run); a step
# that fails stops them. The local tier runs alone, so its rows are not judged while other
# tests share the cores; the prebuild goes on beside it only in the CPU its windows leave.
# The envtest tier runs beside the lab tier, whose node leaves most of the CPU idle (its
# pods' CPU requests, not their use, fill it). Flux and the Argo CD module's compile go on
# at idle priority; the Argo CD module runs last.
tier_all() {
  GOGC="${build_gogc}" hack/lab/prebuild.sh start argocd ./...
  trap 'hack/lab/prebuild.sh stop' EXIT
  make --no-print-directory deps lint verify-generated
  tier_local
  # Its output interleaves with the lab's and ends long before it: a copy is kept, and a
  # failure's digest printed again at the end, where a reader of the tail (CI) looks.
  mkdir -p .cache/test
  local log=.cache/test/envtest-race.log
  ({ tier_envtest && tier_race; } 2>&1 | tee "${log}") &
  envtest=$!
  lab=0
  tier_lab || lab=$?
  wait "${envtest}" || { envtest_failed "${log}"; exit 1; }
  [[ ${lab} == 0 ]] || { echo "make test: the lab tier failed"; exit "${lab}"; }
  hack/lab/prebuild.sh wait-all
  tier_argocd
}

# envtest_failed repeats the envtest tier's digest of failures (hack/testdigest), or the end
# of the race tier's output when that tier failed.
envtest_failed() {
  echo "make test: the envtest or race tier failed (its output is above and in $1); what failed:"
  if grep -q '^=== digest:' "$1"; then
    sed -n '/^=== digest:/,$p' "$1" | head -n 300
  else
    tail -n 80 "$1"
  fi
}

dry=""
if [[ "${1:-}" == -n ]]; then dry=1; shift; fi
tier="${1:-}"
case "${tier}" in
all | unit | envtest | race | local | lab | argocd) ;;
*) echo "usage: hack/test.sh [-n] all|unit|envtest|race|local|lab|argocd" >&2; exit 2 ;;
esac
if [[ -n "${dry}" ]]; then
  # The tier's function and those it calls, as bash prints them.
  echo "# CGO_ENABLED=${CGO_ENABLED} timeout=${timeout} build_gogc=${build_gogc}"
  declare -f "tier_${tier}"
  if [[ "${tier}" == all ]]; then declare -f tier_local tier_envtest tier_race tier_lab tier_argocd envtest_failed; fi
  exit 0
fi
"tier_${tier}"
