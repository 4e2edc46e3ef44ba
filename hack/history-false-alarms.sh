#!/usr/bin/env bash
# Measures gauntlet history's false-alarm rate on real runs: N short local runs of one
# unchanged target (go-nethttp, ping, 200 req/s), then `gauntlet history` over them. Nothing
# changed between the runs, so every change point it reports is a false alarm.
#   hack/history-false-alarms.sh [FOLDER]    (N=20 by default; about 30 s of CPU a run)
# FOLDER keeps the runs (default: a new temporary folder); rerunning with the same FOLDER
# adds runs to it. Prints the history and the count of change points.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20}
dir=${1:-$(mktemp -d -t gauntlet-history-XXXXXX)}
mkdir -p "$dir/runs"
hack/k6.sh >/dev/null
go build -o "$dir/gauntlet" ./cmd/gauntlet
cat >"$dir/unchanged.yaml" <<'YAML'
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: unchanged
spec:
  targets:
  - {name: go, preset: go-nethttp}
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [200], maxVUs: 50, warmup: 1s, duration: 3s, repetitions: 3}
YAML
for i in $(seq 1 "$N"); do
  "$dir/gauntlet" run --local -f "$dir/unchanged.yaml" --out "$dir/runs/unchanged-$(date -u +%Y%m%dT%H%M%S)-$i" >"$dir/run-$i.log" 2>&1 ||
    { echo "run $i failed, see $dir/run-$i.log" >&2; exit 1; }
  echo "run $i of $N done"
done
code=0
"$dir/gauntlet" history "$dir/runs" || code=$?
alarms=$("$dir/gauntlet" history "$dir/runs" 2>/dev/null | grep -cE ' (Slower|Faster)( NEW)?$' || true)
echo "exit status $code; $alarms change point(s) over $(find "$dir/runs" -mindepth 1 -maxdepth 1 | wc -l) unchanged runs: each a false alarm"
echo "runs and logs in $dir"
