#!/usr/bin/env bash
# Runs commands at once, each with its output kept in .cache/parallel/<i>.log and shown only
# when it fails; waits for all of them, then fails if any failed, naming each. For installs
# that share only Go's module and build caches (both safe for concurrent use): one's
# downloads and single-threaded links overlap another's compiles.
# Usage: hack/parallel.sh 'COMMAND ARGS' ...
set -uo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/parallel"
mkdir -p "${dir}"
cmds=("$@")
pids=()
start=$(date +%s)
for i in "${!cmds[@]}"; do
  bash -c "${cmds[i]}" > "${dir}/${i}.log" 2>&1 < /dev/null &
  pids+=($!)
done
failed=0
for i in "${!cmds[@]}"; do
  if wait "${pids[i]}"; then
    echo "hack/parallel.sh: ${cmds[i]}: done at $(( $(date +%s) - start )) s"
  else
    echo "hack/parallel.sh: ${cmds[i]}: failed at $(( $(date +%s) - start )) s:" >&2
    tail -n 40 "${dir}/${i}.log" >&2
    failed=1
  fi
done
exit "${failed}"
