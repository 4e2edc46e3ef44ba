#!/usr/bin/env bash
# make test: what the lab tier needs (its Debian packages, the kubelet and its companions, the
# operators; then cosign, which it and test/release sign with) builds in the background at idle priority from make test's first step, beside
# deps, the envtest tier and the local tier; then, while the lab tier runs, Flux (only its
# GitOps subtest needs it) and, with `argocd`, the Argo CD module's test (make test runs it
# last). Packages named after `argocd` are compiled as tests (not run) between the two: make
# test runs the envtest tier beside the lab tier, where it then only runs. Built in sequence
# after the other tiers, the lab's binaries were about a quarter of a cold make test; at idle
# priority they take only the CPU the tiers leave.
# Usage: hack/lab/prebuild.sh start [argocd [PKG...]]|wait|wait-all|running|stop
#   start     begins the build in its own process group (a second start while one runs: no-op)
#   wait      waits for the lab's part (packages, Kubernetes, operators); the
#             rest goes on beside the lab tier. A failed build is reported, not fatal: lab-test
#             runs the same scripts again in the foreground, where the error shows in full
#   wait-all  waits for all of it
#   stop      ends it (make test's exit trap: a tier failed, nothing will need the lab)
#   running   exits 0 while it runs (lab-test then leaves Flux to it)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="${ROOT}/.cache/lab-prebuild"
PID="${DIR}/pid"
LOG="${DIR}/log"

running() { [[ -f "${PID}" ]] && kill -0 "$(cat "${PID}")" 2>/dev/null; }

# report PART STATUS_FILE: how the part went (the file holds its exit status and when it
# ended), from when the build started.
report() {
  local status ended took
  read -r status ended < "$2" 2>/dev/null || true
  took=$(( ${ended:-$(date +%s)} - $(cat "${DIR}/started") ))
  if [[ "${status:-}" == 0 ]]; then
    echo "hack/lab/prebuild.sh: $1 built in ${took} s in the background (waited $(( $(date +%s) - waited )) s for it)"
  else
    echo "hack/lab/prebuild.sh: $1 failed or did not finish in the background after ${took} s; it builds again in the foreground:" >&2
    tail -n 20 "${LOG}" >&2
  fi
}

case "${1:-}" in
start)
  running && exit 0
  mkdir -p "${DIR}"
  rm -f "${DIR}/status" "${DIR}/lab-status"
  date +%s > "${DIR}/started"
  shift
  argocd=""
  if [[ "${1:-}" == argocd ]]; then argocd=1; shift; fi
  # setsid: one process group to stop. A new session is also a new autogroup, which the
  # scheduler shares the CPU with equally whatever its tasks' priority (sched(7)): at nice 0
  # the build took half the CPU from the tiers beside it (a cold make test, 2026-11-26). At
  # the autogroup's nice 19 and chrt --idle it runs only when no test wants the CPU.
  # shellcheck disable=SC2016  # the script is bash -c's: its $1... expand there
  setsid chrt --idle 0 nice -n 19 bash -c '
    echo 19 > /proc/self/autogroup 2>/dev/null || true
    set -o pipefail
    "$1/hack/lab/packages.sh" && "$1/hack/lab/binaries.sh" lab
    status=$?
    echo "${status} $(date +%s)" > "$2/lab-status"
    # cosign: test/release and the lab tier sign with it, after the local tier. A caller
    # that comes first builds it itself (hack/tools.sh installs atomically).
    "$1/hack/tools.sh" cosign > /dev/null || true
    if [[ ${status} == 0 && $# -gt 3 ]]; then
      # -exec true: compiled and linked, not run; the Go cache keeps what was compiled. A
      # compile error is the tier'"'"'s to report, in full, when it runs.
      (cd "$1" && go test -count=1 -exec true "${@:4}" > /dev/null) || true
    fi
    if [[ ${status} == 0 ]]; then
      "$1/hack/lab/binaries.sh" flux && { [[ -z "$3" ]] || (cd "$1/test/argocd" && go vet ./... && go test -count=1 -run "^$" ./...); }
      status=$?
    fi
    echo "${status} $(date +%s)" > "$2/status"' prebuild "${ROOT}" "${DIR}" "${argocd}" "$@" > "${LOG}" 2>&1 < /dev/null &
  echo $! > "${PID}"
  echo "hack/lab/prebuild.sh: the lab's binaries build in the background (log: ${LOG#"${ROOT}/"})"
  ;;
wait)
  [[ -f "${PID}" ]] || exit 0
  waited=$(date +%s)
  while running && [[ ! -f "${DIR}/lab-status" ]]; do sleep 2; done
  report "the lab's part" "${DIR}/lab-status"
  ;;
wait-all)
  [[ -f "${PID}" ]] || exit 0
  waited=$(date +%s)
  while running; do sleep 2; done
  rm -f "${PID}"
  report "all of it" "${DIR}/status"
  ;;
running)
  running
  ;;
stop)
  if running; then
    kill -TERM -- "-$(cat "${PID}")" 2>/dev/null || true
  fi
  rm -f "${PID}"
  ;;
*)
  echo "usage: hack/lab/prebuild.sh start [argocd [PKG...]]|wait|wait-all|running|stop" >&2
  exit 2
  ;;
esac
