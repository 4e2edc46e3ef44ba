#!/usr/bin/env bash
# A year of a schedule's nightly runs (365 runs x 20 targets x 9 rows x 4 figures) in the
# chart's history database in the lab (make lab-stack first: hack/lab/chart-values.yaml turns
# it on): internal/historydb's TestYearOfNightlyRuns on that database, reached through a
# port-forward to its Service, with the credentials the manager reads (the Cluster's app
# Secret). It times every append, loading the year, the controller's analysis of it and the
# Grafana query of one series, and prints them (docs/history.md, "A year in the lab").
#   hack/lab/history-year.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
ns=gauntlet-system
lab_kubectl -n "${ns}" wait --for=condition=Ready cluster.postgresql.cnpg.io/gauntlet-history --timeout=5m >/dev/null
uri="$(lab_kubectl -n "${ns}" get secret gauntlet-history-app -o jsonpath='{.data.uri}' | base64 -d)"
port=15432
lab_kubectl -n "${ns}" port-forward svc/gauntlet-history-rw "${port}:5432" >/dev/null 2>&1 &
forward=$!
trap 'kill "${forward}" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (: > "/dev/tcp/127.0.0.1/${port}") 2>/dev/null && break
  sleep 0.2
done
# The Secret names the Service as the cluster's DNS knows it; the forward is on loopback.
url="$(sed -E "s#@[^/]+/#@127.0.0.1:${port}/#" <<<"${uri}")"
cd "${LAB_ROOT}"
GAUNTLET_HISTORYDB_YEAR=1 GAUNTLET_HISTORYDB_URL="${url}" \
  go test ./internal/historydb -run TestYearOfNightlyRuns -count=1 -v -timeout 30m
