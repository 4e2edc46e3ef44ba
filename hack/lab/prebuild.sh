#!/usr/bin/env bash
# make test: the lab's Debian packages and binaries (the kubelet and its companions, the
# operators, Flux) install in the background at idle priority while the envtest and local
# tiers run, and lab-test finds them cached. Built in sequence after those tiers, they were
# about a quarter of a cold `make test`; at SCHED_IDLE they take only the CPU the tiers leave.
# Usage: hack/lab/prebuild.sh start|pause|wait|stop
#   start  begins the build in its own process group (a second start while one runs: no-op)
#   pause  stops it (SIGSTOP) while the local tier measures: even at idle priority a build
#          beside it shares the caches and memory, and a capacity search near its knee and
#          seed 001's sample failed that way (a cold make test, 2026-11-25)
#   wait   resumes it, waits for it and says how it went; a failed build is reported, not
#          fatal: lab-test runs the same scripts again in the foreground, where the error
#          shows in full (a download cut while paused fails that way too)
#   stop   ends it (make test's exit trap: a tier failed, nothing will need the lab)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="${ROOT}/.cache/lab-prebuild"
PID="${DIR}/pid"
LOG="${DIR}/log"

running() { [[ -f "${PID}" ]] && kill -0 "$(cat "${PID}")" 2>/dev/null; }

case "${1:-}" in
start)
  running && exit 0
  mkdir -p "${DIR}"
  rm -f "${DIR}/status"
  date +%s > "${DIR}/started"
  # setsid: one process group to stop; chrt --idle: runs only when no test wants the CPU.
  setsid chrt --idle 0 nice -n 19 bash -c '
    "$1/hack/lab/packages.sh" && "$1/hack/lab/binaries.sh"
    echo $? > "$2/status"' prebuild "${ROOT}" "${DIR}" > "${LOG}" 2>&1 < /dev/null &
  echo $! > "${PID}"
  echo "hack/lab/prebuild.sh: the lab's binaries build in the background (log: ${LOG#"${ROOT}/"})"
  ;;
pause)
  if running; then kill -STOP -- "-$(cat "${PID}")" 2>/dev/null || true; fi
  ;;
wait)
  [[ -f "${PID}" ]] || exit 0
  if running; then kill -CONT -- "-$(cat "${PID}")" 2>/dev/null || true; fi
  waited=$(date +%s)
  while running; do sleep 2; done
  rm -f "${PID}"
  now=$(date +%s)
  took=$(( now - $(cat "${DIR}/started") ))
  if [[ "$(cat "${DIR}/status" 2>/dev/null)" == 0 ]]; then
    echo "hack/lab/prebuild.sh: built in ${took} s in the background (waited $(( now - waited )) s for it)"
  else
    echo "hack/lab/prebuild.sh: the background build failed after ${took} s; lab-test builds again:" >&2
    tail -n 20 "${LOG}" >&2
  fi
  ;;
stop)
  if running; then
    kill -TERM -- "-$(cat "${PID}")" 2>/dev/null || true
    kill -CONT -- "-$(cat "${PID}")" 2>/dev/null || true # a paused group acts on TERM only once resumed
  fi
  rm -f "${PID}"
  ;;
*)
  echo "usage: hack/lab/prebuild.sh start|pause|wait|stop" >&2
  exit 2
  ;;
esac
