#!/usr/bin/env bash
# Measures the wire agent's CPU per 1,000 captured requests: a namespace behind a veth pair
# (as a CNI makes a pod) runs the null responder, the agent runs on the host side capturing
# it, and load comes from the host: loadgen/bench.js under k6 at a fixed rate (its measured
# window only, so k6's measured count is the one to match), or wrk as fast as it can with
# the measured-phase header.
# The agent's user+system CPU (its /proc stat, what getrusage reports for it) over the
# captured requests is the figure; the kernel's work for the packet socket in softirq
# (filter, clone, queue) is not charged to the agent and is not in it.
# The agent serves HTTPS with a throwaway self-signed pair and reviews the token with a stub
# of the API server's TokenReview (the token of this run only), as it would in a cluster.
# Needs root, iproute2, openssl and wrk. Everything it makes (namespace, veth, processes) it removes.
# Usage: sudo hack/wire-agent-cpu.sh [seconds] [rate|wrk]   (default: 10 1000)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECONDS_RUN="${1:-10}"
RATE="${2:-1000}"
NS="gauntlet-wirecpu-$$"
HOST="gwch$$"; PEER="gwcp$$"
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  ip netns del "$NS" 2>/dev/null || true
  ip link del "$HOST" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$ROOT" && go build -o "$tmp/gauntlet" ./cmd/gauntlet)
ip netns add "$NS"
ip link add "$HOST" type veth peer name "$PEER"
ip link set "$PEER" netns "$NS"
ip addr add 10.232.0.1/30 dev "$HOST"; ip link set "$HOST" up
ip -n "$NS" addr add 10.232.0.2/30 dev "$PEER"; ip -n "$NS" link set "$PEER" up; ip -n "$NS" link set lo up
ip netns exec "$NS" "$tmp/gauntlet" null-responder --listen 10.232.0.2:8080 & pids+=($!)
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/token"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=gauntlet-wire-agent \
  -addext subjectAltName=DNS:gauntlet-wire-agent -keyout "$tmp/tls.key" -out "$tmp/tls.crt" 2>/dev/null
# The stub API server: a TokenReview of this run's token is the caller's, any other is not.
python3 - "$tmp/token" <<'PY' & pids+=($!)
import http.server, json, sys
token = open(sys.argv[1]).read().strip()
class Review(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ok = review["spec"]["token"] == token
        review["status"] = {"authenticated": ok, "audiences": review["spec"].get("audiences", []),
                            "user": {"username": "system:serviceaccount:bench:cpu"} if ok else {}}
        body = json.dumps(review).encode()
        self.send_response(201); self.send_header("Content-Type", "application/json"); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
http.server.HTTPServer(("127.0.0.1", 19478), Review).serve_forever()
PY
cat >"$tmp/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: stub, cluster: {server: "http://127.0.0.1:19478"}}]
users: [{name: stub, user: {}}]
contexts: [{name: stub, context: {cluster: stub, user: stub}}]
current-context: stub
YAML
"$tmp/gauntlet" wire-agent --listen 127.0.0.1:19477 --kubeconfig "$tmp/kubeconfig" --caller system:serviceaccount:bench:cpu \
  --tls-cert-file "$tmp/tls.crt" --tls-key-file "$tmp/tls.key" & agent=$!; pids+=("$agent")
auth="Authorization: Bearer $(cat "$tmp/token")"
curl() { command curl --cacert "$tmp/tls.crt" --resolve gauntlet-wire-agent:19477:127.0.0.1 "$@"; }
for _ in $(seq 50); do
  curl -fsS https://gauntlet-wire-agent:19477/healthz >/dev/null 2>&1 && curl -fsS http://10.232.0.2:8080/ >/dev/null 2>&1 &&
    curl -sS -o /dev/null http://127.0.0.1:19478/ 2>/dev/null && break
  sleep 0.1
done
cpu() { awk '{print $14+$15}' "/proc/$agent/stat"; }
curl -fsS -H "$auth" -d '{"id":"cpu","podIP":"10.232.0.2","port":8080,"seconds":600}' https://gauntlet-wire-agent:19477/v1/captures >/dev/null
before=$(cpu)
if [[ "$RATE" == wrk ]]; then
  wrk -t1 -c8 -d"${SECONDS_RUN}s" -H 'Gauntlet-Phase: measure' http://10.232.0.2:8080/ | tee "$tmp/load"
  sent=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$tmp/load")
else
  k6="$(bash "$ROOT/hack/k6.sh")"
  pre=$(( RATE / 10 > 20 ? RATE / 10 : 20 ))
  cat >"$tmp/plan.json" <<JSON
{"baseURL":"http://10.232.0.2:8080","requests":[{"method":"GET","path":"/","expectStatus":200,"cumWeight":1}],
 "mixTotal":1,"mixStride":1,"model":"open","rate":$RATE,"preAllocatedVUs":$pre,"maxVUs":$(( pre * 10 )),
 "keepAlive":true,"warmupMs":0,"measureMs":$(( SECONDS_RUN * 1000 )),"timeoutMs":5000,"tags":{}}
JSON
  "$k6" run -q -e PLAN="$tmp/plan.json" --summary-export "$tmp/summary.json" "$ROOT/loadgen/bench.js" >"$tmp/load" 2>&1
  sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"]["http_reqs{phase:measure}"]["count"])' "$tmp/summary.json")
fi
sleep 0.2
figures=$(curl -fsS -H "$auth" -X POST https://gauntlet-wire-agent:19477/v1/captures/cpu/stop)
after=$(cpu)
hz=$(getconf CLK_TCK)
python3 - "$figures" "$before" "$after" "$hz" "$sent" "$RATE" <<'PY'
import json, sys
f = json.loads(sys.argv[1]); before, after, hz, sent = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ms = (after - before) * 1000 / hz
print(f"load ({sys.argv[6]}) sent {sent} measured requests; agent captured {f['requests']} on {f['interface']} "
      f"(unanswered {f['unanswered']}, dropped packets {f['droppedPackets']}; p50 {f['p50Micros']} us, p99 {f['p99Micros']} us)")
print(f"agent CPU {ms:.0f} ms (user+system, {hz} Hz ticks): {ms * 1000 / max(f['requests'], 1):.1f} ms per 1,000 requests")
PY
