#!/usr/bin/env bash
# Runs commands at once, each with its output kept in .cache/parallel/<n>.log and shown only
# when it fails; waits for all of them, then fails if any failed, naming each. For installs
# that share only Go's module and build caches (both safe for concurrent use): one's
# downloads and single-threaded links overlap another's compiles.
# Usage: hack/parallel.sh 'COMMAND ARGS' ...
set -uo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/parallel"
mkdir -p "${dir}"
pids=()
start=$(date +%s)
n=0
for cmd in "$@"; do
  n=$((n + 1))
  bash -c "${cmd}" > "${dir}/${n}.log" 2>&1 < /dev/null &
  pids+=($!)
done
failed=0
n=0
for cmd in "$@"; do
  n=$((n + 1))
  if wait "${pids[$((n - 1))]}"; then
    echo "hack/parallel.sh: ${cmd}: done at $(( $(date +%s) - start )) s"
  else
    echo "hack/parallel.sh: ${cmd}: failed at $(( $(date +%s) - start )) s:" >&2
    tail -n 40 "${dir}/${n}.log" >&2
    failed=1
  fi
done
exit "${failed}"
