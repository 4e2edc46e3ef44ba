#!/usr/bin/env bash
# A Grafana panel over the year hack/lab/history-year.sh stored in the lab's history database:
# docs/history.md's query of one series, its time filter written out as the year, run with
# the chart's read-only login (a Grafana data source's, over TCP) in the database's Pod, then
# drawn by Grafana's own panel components (@grafana/ui's PanelChrome and TimeSeries, from
# hack/lab/panel at pinned versions) and shot in headless Chromium. Grafana's server is not
# installable here; its panel components are. Run make lab-stack and hack/lab/history-year.sh
# first.
#   hack/lab/history-panel.sh [OUT.png]      (docs/history-year-panel.png)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "${HERE}/env.sh"
source "${HERE}/proc.sh"
out="$(realpath -m "${1:-${LAB_ROOT}/docs/history-year-panel.png}")"
ns=gauntlet-system
pod=gauntlet-history-1
reader() { lab_kubectl -n "${ns}" get secret gauntlet-history-reader -o jsonpath="{.data.$1}" | base64 -d; }
user="$(reader username)"
password="$(reader password)"
psql() {
  lab_kubectl -n "${ns}" exec "${pod}" -c postgres -- env PGPASSWORD="${password}" \
    psql -h localhost -U "${user}" -d gauntlet_history -v ON_ERROR_STOP=1 -Atc "$1"
}
# The newest year the year test stored (its namespace is year-<unix time>) and its span.
read -r year from to < <(psql "SELECT namespace, min(scheduled_at), max(scheduled_at) FROM history.runs
  WHERE namespace = (SELECT max(namespace) FROM history.runs WHERE namespace LIKE 'year-%') GROUP BY namespace" |
  tr '|' ' ' | sed -E 's/ ([0-9:]+)\+00/T\1Z/g')
[[ -n "${year:-}" ]] || { echo "history-panel: no year in the lab's history database: run hack/lab/history-year.sh" >&2; exit 1; }
query="SELECT r.scheduled_at AS \"time\", f.value_milli / 1000.0 AS \"p99 µs\"
FROM history.runs r
JOIN history.figures f ON f.run_id = r.id
WHERE r.namespace = '${year}' AND r.schedule = 'nightly'
  AND r.scheduled_at BETWEEN '${from}' AND '${to}'
  AND f.target = 't07' AND f.scenario = 'ping' AND f.load_point = 200 AND f.figure = 'p99'
ORDER BY 1"
frame="$(psql "SELECT json_build_object('times', json_agg((extract(epoch FROM q.\"time\") * 1000)::bigint ORDER BY q.\"time\"),
  'values', json_agg(q.\"p99 µs\" ORDER BY q.\"time\")) FROM (${query}) q")"
points="$(jq '.times | length' <<<"${frame}")"
echo "history-panel: ${points} points of ${year}, ${from} to ${to}" >&2

panel="${HERE}/panel"
work="${LAB_STATE}/panel"
mkdir -p "${work}"
(cd "${panel}" && { [[ node_modules/.package-lock.json -nt package-lock.json ]] || npm ci --no-audit --no-fund --loglevel=error; } &&
  node_modules/.bin/esbuild panel.jsx --bundle --minify --format=iife --log-level=warning \
    --define:process.env.NODE_ENV='"production"' --loader:.svg=text --loader:.ttf=file --loader:.woff=file --loader:.woff2=file --outfile="${work}/panel.js")
cp "${panel}/index.html" "${work}/"
jq -n --argjson frame "${frame}" --arg title "t07 ping@200 p99 over a year (${year}/nightly, history database)" \
  --arg from "${from}" --arg to "${to}" \
  '{title: $title, field: "p99 µs", unit: "µs", times: $frame.times, values: $frame.values,
    from: ($from | fromdate * 1000), to: ($to | fromdate * 1000), width: 1100, height: 380}' |
  sed '1s/^/window.PANEL = /' > "${work}/data.js"
chromium="$("${LAB_ROOT}/hack/chromium.sh")"
# Chromium's own background traffic is refused on this machine's closed network: turned off.
"${chromium}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="${work}/chromium" --window-size=1116,396 \
  --virtual-time-budget=5000 --screenshot="${out}" "file://${work}/index.html" 2>/dev/null
echo "history-panel: ${out}" >&2
