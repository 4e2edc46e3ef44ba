package api

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// base is a valid run that every case below breaks in exactly one way.
const base = `
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: base
spec:
  targets:
  - name: go
    preset: go-nethttp
    workers: 4
    nodePool: amd
    env: [{name: GOGC, value: "200"}]
  - name: mine
    image: registry.example/mine:1.0
    port: 8080
  nodePools:
  - name: amd
    nodeSelector: {kubernetes.io/arch: amd64}
    tolerations: [{key: dedicated, operator: Equal, value: bench, effect: NoSchedule}]
    hourlyPrice: "0.17"
  - name: loadgen
  loadGenerator: {nodePool: loadgen, parallelism: 2}
  database:
    appPool: {min: 5, max: 15}
    pooler: {poolMode: Transaction}
  scenarios:
  - name: ping
    workload: ping
  - name: mix
    requests:
    - {method: GET, path: /devices/status, weight: 6}
    - {method: POST, path: /devices/1/command, body: '{"action":"set"}', weight: 3}
  load:
    model: Open
    rates: [1000, 5000]
    warmup: 30s
    duration: 5m
    repetitions: 5
  slo: {p99: 50ms, errorRate: "0.001"}
  baseline: {run: earlier, metric: p99, minEffect: "0.05"}
  cleanup: {policy: OnSuccess, ttlSecondsAfterFinished: 3600}
  imagePullSecrets: [{name: ghcr-creds}, {name: registry.example.com}]
`

type invalidCase struct {
	name   string
	mutate func(o map[string]any)
	field  string // the field path both verdicts must name
}

func set(path string, value any) func(map[string]any) {
	return func(o map[string]any) { setPath(o, path, value) }
}

func del(path string) func(map[string]any) {
	return func(o map[string]any) {
		parts := strings.Split(path, ".")
		parent := walk(o, parts[:len(parts)-1])
		delete(parent, parts[len(parts)-1])
	}
}

// pullSecrets is n valid, distinct imagePullSecrets entries.
func pullSecrets(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"name": "registry-" + strconv.Itoa(i)}
	}
	return out
}

func both(fs ...func(map[string]any)) func(map[string]any) {
	return func(o map[string]any) {
		for _, f := range fs {
			f(o)
		}
	}
}

// envOf is n env variables (E0, E1, ...) with values of size bytes.
func envOf(n, size int) []any {
	var env []any
	for i := range n {
		env = append(env, map[string]any{"name": fmt.Sprintf("E%d", i), "value": strings.Repeat("v", size)})
	}
	return env
}

// targetsOf is n preset targets, each with env.
func targetsOf(n int, env func() []any) []any {
	var ts []any
	for i := range n {
		ts = append(ts, map[string]any{"name": fmt.Sprintf("t%d", i), "preset": "go-nethttp", "env": env()})
	}
	return ts
}

// postsOf is n POST requests with bodies of size bytes.
func postsOf(n, size int) []any {
	var rs []any
	for i := range n {
		rs = append(rs, map[string]any{"method": "POST", "path": fmt.Sprintf("/devices/%d", i), "body": strings.Repeat("b", size)})
	}
	return rs
}

// scenariosOf is n custom scenarios of 32 requests each.
func scenariosOf(n int) []any {
	var ss []any
	for i := range n {
		ss = append(ss, map[string]any{"name": fmt.Sprintf("s%d", i), "requests": postsOf(32, 0)})
	}
	return ss
}

// poolsOf is the base's two pools and n-2 more, each with 16 selector entries.
func poolsOf(n int) []any {
	var ps []any
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		switch i {
		case 0:
			name = "amd"
		case 1:
			name = "loadgen"
		}
		sel := map[string]any{}
		for j := range 16 {
			sel[fmt.Sprintf("k%d", j)] = "v"
		}
		ps = append(ps, map[string]any{"name": name, "nodeSelector": sel})
	}
	return ps
}

var invalidCases = []invalidCase{
	{"bad metadata name", set("metadata.name", "Bad_Name"), "metadata.name"},
	{"unknown field", set("spec.bogus", 1), "spec.bogus"},
	{"no targets", set("spec.targets", []any{}), "spec.targets"},
	{"missing scenarios", del("spec.scenarios"), "spec.scenarios"},
	{"target name not a DNS label", set("spec.targets.0.name", "Go!"), "spec.targets[0].name"},
	{"duplicate target names", set("spec.targets.1.name", "go"), "spec.targets[1]"},
	{"preset and image together", set("spec.targets.0.image", "x:1"), "spec.targets[0]"},
	{"neither preset nor image", del("spec.targets.0.preset"), "spec.targets[0]"},
	{"image without port", del("spec.targets.1.port"), "spec.targets[1].port"},
	{"unknown preset", set("spec.targets.0.preset", "rust-actix"), "spec.targets[0].preset"},
	{"zero workers", set("spec.targets.0.workers", 0), "spec.targets[0].workers"},
	{"too many workers", set("spec.targets.0.workers", 1000), "spec.targets[0].workers"},
	{"reserved env var", set("spec.targets.0.env.0.name", "DATABASE_URL"), "spec.targets[0].env[0].name"},
	{"one target's env values above 8 KiB", set("spec.targets.0.env", envOf(3, 3000)), "spec.targets[0].env"},
	{"env across targets above 32 KiB", set("spec.targets", targetsOf(5, func() []any { return envOf(2, 4000) })), "spec.targets: Invalid value"},
	{"request paths and bodies above 32 KiB", set("spec.scenarios.1.requests", postsOf(5, 8000)), "spec.scenarios: Invalid value"},
	{"more than 256 requests across scenarios", both(set("spec.load.rates", []any{1000}), set("spec.scenarios", scenariosOf(9))), "spec.scenarios: Invalid value"},
	{"more than 64 selector entries and tolerations across pools", set("spec.nodePools", poolsOf(5)), "spec.nodePools: Invalid value"},
	{"database parameter value above 256", set("spec.database.parameters", map[string]any{"search_path": strings.Repeat("s", 257)}), "spec.database.parameters"},
	{"pooler parameter name above 63", set("spec.database.pooler.parameters", map[string]any{strings.Repeat("p", 64): "1"}), "spec.database.pooler.parameters"},
	{"node selector value above 63", set("spec.nodePools.0.nodeSelector", map[string]any{"kubernetes.io/arch": strings.Repeat("a", 64)}), "spec.nodePools[0].nodeSelector"},
	{"target node pool unknown", set("spec.targets.0.nodePool", "arm"), "spec.targets"},
	{"duplicate node pools", set("spec.nodePools.1.name", "amd"), "spec.nodePools[1]"},
	{"hourly price not a decimal", set("spec.nodePools.0.hourlyPrice", "17 cents"), "spec.nodePools[0].hourlyPrice"},
	{"toleration operator", set("spec.nodePools.0.tolerations.0.operator", "Maybe"), "spec.nodePools[0].tolerations[0].operator"},
	{"load generator node pool unknown", set("spec.loadGenerator.nodePool", "arm"), "spec.loadGenerator.nodePool"},
	{"zero parallelism", set("spec.loadGenerator.parallelism", 0), "spec.loadGenerator.parallelism"},
	{"too much parallelism", set("spec.loadGenerator.parallelism", 65), "spec.loadGenerator.parallelism"},
	{"app pool min above max", set("spec.database.appPool.min", 20), "spec.database.appPool"},
	{"pool mode", set("spec.database.pooler.poolMode", "statement"), "spec.database.pooler.poolMode"},
	{"connect via", set("spec.database.connectVia", "proxy"), "spec.database.connectVia"},
	{"prepared statements", set("spec.database.preparedStatements", "maybe"), "spec.database.preparedStatements"},
	{"database instances", set("spec.database.instances", 9), "spec.database.instances"},
	{"db workload without database", both(del("spec.database"), set("spec.scenarios.0.workload", "db-ping")), "spec.database"},
	{"db path without database", both(del("spec.database"), set("spec.scenarios.1.requests.0.path", "/api/db/time")), "spec.database"},
	{"workload and requests together", set("spec.scenarios.0.requests", []any{map[string]any{"path": "/x"}}), "spec.scenarios[0]"},
	{"neither workload nor requests", del("spec.scenarios.0.workload"), "spec.scenarios[0]"},
	{"unknown workload", set("spec.scenarios.0.workload", "fortunes"), "spec.scenarios[0].workload"},
	{"duplicate scenarios", set("spec.scenarios.1.name", "ping"), "spec.scenarios[1]"},
	{"zero weight", set("spec.scenarios.1.requests.0.weight", 0), "spec.scenarios[1].requests[0].weight"},
	{"path without slash", set("spec.scenarios.1.requests.0.path", "devices"), "spec.scenarios[1].requests[0].path"},
	{"unknown method", set("spec.scenarios.1.requests.0.method", "FETCH"), "spec.scenarios[1].requests[0].method"},
	{"expected status out of range", set("spec.scenarios.1.requests.0.expectStatus", 700), "spec.scenarios[1].requests[0].expectStatus"},
	{"unknown model", set("spec.load.model", "poisson"), "spec.load.model"},
	{"open model without rates", del("spec.load.rates"), "spec.load.rates"},
	{"closed model without connections", set("spec.load.model", "Closed"), "spec.load.connections"},
	{"connections on the open model", set("spec.load.connections", []any{100}), "spec.load.connections"},
	{"zero rate", set("spec.load.rates", []any{0}), "spec.load.rates[0]"},
	{"duplicate rates", set("spec.load.rates", []any{1000, 1000}), "spec.load.rates[1]"},
	{"zero duration", set("spec.load.duration", "0s"), "spec.load.duration"},
	{"duration not a duration", set("spec.load.duration", "5 minutes"), "spec.load.duration"},
	{"zero request timeout", set("spec.load.requestTimeout", "0m"), "spec.load.requestTimeout"},
	{"zero repetitions", set("spec.load.repetitions", 0), "spec.load.repetitions"},
	{"too many repetitions", set("spec.load.repetitions", 21), "spec.load.repetitions"},
	{"empty slo", set("spec.slo", map[string]any{}), "spec.slo"},
	{"error rate above one", set("spec.slo.errorRate", "2"), "spec.slo.errorRate"},
	{"cleanup policy", set("spec.cleanup.policy", "Sometimes"), "spec.cleanup.policy"},
	{"negative ttl", set("spec.cleanup.ttlSecondsAfterFinished", -1), "spec.cleanup.ttlSecondsAfterFinished"},
	{"keep-alive not a boolean", set("spec.load.keepAlive", "sometimes"), "spec.load.keepAlive"},
	{"too many trials for one status", both(set("spec.load.rates", []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
		set("spec.load.repetitions", 20)), "spec.load.repetitions"},
	{"duration that would overflow", set("spec.load.duration", "99999999999h"), "spec.load.duration"},
	{"duration above its bound", set("spec.load.duration", "7h"), "spec.load.duration"},
	{"warmup above its bound", set("spec.load.warmup", "61m"), "spec.load.warmup"},
	{"request timeout above its bound", set("spec.load.requestTimeout", "6m"), "spec.load.requestTimeout"},
	{"slo latency above its bound", set("spec.slo.p99", "2h"), "spec.slo.p99"},
	{"search on the closed model", both(set("spec.load.model", "Closed"), del("spec.load.rates"), set("spec.load.connections", []any{10}),
		set("spec.load.search", map[string]any{"start": 10})), "spec.load.search"},
	{"search width zero", set("spec.load.search", map[string]any{"width": "0.00"}), "spec.load.search.width"},
	{"search maxRate under start", set("spec.load.search", map[string]any{"start": 500, "maxRate": 400}), "spec.load.search.maxRate"},
	{"search attempts even", set("spec.load.search", map[string]any{"attempts": 2}), "spec.load.search.attempts"},
	{"search steps above bound", set("spec.load.search", map[string]any{"maxSteps": 41}), "spec.load.search.maxSteps"},
	{"search zero step duration", set("spec.load.search", map[string]any{"stepDuration": "0s"}), "spec.load.search.stepDuration"},
	{"too many trials with a search", set("spec.load.search", map[string]any{"maxSteps": 40}), "spec.load.repetitions"},
	{"baseline is the run itself", set("spec.baseline.run", "base"), "spec.baseline.run"},
	{"baseline run not a name", set("spec.baseline.run", "Earlier Run"), "spec.baseline.run"},
	{"baseline minimum effect zero", set("spec.baseline.minEffect", "0.000"), "spec.baseline.minEffect"},
	{"baseline minimum effect as a percentage", set("spec.baseline.minEffect", "5%"), "spec.baseline.minEffect"},
	{"baseline metric unknown", set("spec.baseline.metric", "mean"), "spec.baseline.metric"},
	{"comparison with 3 repetitions", set("spec.load.repetitions", 3), "spec.load.repetitions"},
	{"baseline with nothing to compare", del("spec.baseline.run"), "spec.baseline"},
	{"baselineTarget names no target", set("spec.targets.1.baselineTarget", "nobody"), "spec.targets"},
	{"baselineTarget names itself", set("spec.targets.0.baselineTarget", "go"), "spec.targets"},
	{"baselineTarget on another pool", set("spec.targets.1.baselineTarget", "go"), "spec.targets"},
	{"pull secret name not a Secret's name", set("spec.imagePullSecrets", []any{map[string]any{"name": "Registry_Creds"}}), "spec.imagePullSecrets[0].name"},
	{"pull secret name empty", set("spec.imagePullSecrets", []any{map[string]any{}}), "spec.imagePullSecrets[0].name"},
	{"pull secret name too long", set("spec.imagePullSecrets", []any{map[string]any{"name": strings.Repeat("a", 254)}}), "spec.imagePullSecrets[0].name"},
	{"duplicate pull secrets", set("spec.imagePullSecrets", []any{map[string]any{"name": "creds"}, map[string]any{"name": "creds"}}), "spec.imagePullSecrets[1]"},
	{"too many pull secrets", set("spec.imagePullSecrets", pullSecrets(9)), "spec.imagePullSecrets"},
	{"baselineTarget not a name", set("spec.targets.1.baselineTarget", "Go!"), "spec.targets[1].baselineTarget"},
	{"order seed zero", set("spec.load.orderSeed", 0), "spec.load.orderSeed"},
	{"duet without a pair", set("spec.load.pairing", "Duet"), "spec.load.pairing"},
	{"pairing unknown", set("spec.load.pairing", "Together"), "spec.load.pairing"},
}

// Each invalid run is refused by the API server with a message naming the field, and
// gauntlet validate gives the same verdict naming the same field.
func TestInvalidRunsAreRefused(t *testing.T) {
	testenv.Long(t)
	if len(invalidCases) < 30 {
		t.Fatalf("want at least 30 invalid cases, have %d", len(invalidCases))
	}
	ns := newNamespace(t)
	seen := map[string]bool{}
	for _, tc := range invalidCases {
		if seen[tc.name] {
			t.Fatalf("duplicate case %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			obj := map[string]any{}
			if err := yaml.Unmarshal([]byte(base), &obj); err != nil {
				t.Fatal(err)
			}
			tc.mutate(obj)
			refusedByBoth(t, ns, obj, tc.field)
		})
	}
}

// The base itself must pass both, or every case above proves nothing.
func TestBaseRunIsValid(t *testing.T) {
	testenv.Long(t)
	obj := map[string]any{}
	if err := yaml.Unmarshal([]byte(base), &obj); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(newNamespace(t))
	if err := env.Client.Create(context.Background(), u, strict); err != nil {
		t.Fatalf("the API server refuses the base run: %v", err)
	}
	if doc := validator.Validate(context.Background(), []byte(base)); len(doc.Errors) > 0 {
		t.Fatalf("gauntlet validate refuses the base run: %v", doc.Errors.ToAggregate())
	}
}

// refusedByBoth: the API server refuses obj in namespace ns, and so does gauntlet validate,
// each naming field.
func refusedByBoth(t *testing.T, ns string, obj map[string]any, field string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(ns)
	err := env.Client.Create(context.Background(), u, strict)
	if err == nil {
		t.Fatalf("the API server accepted it")
	}
	if !strings.Contains(err.Error(), field) {
		t.Errorf("the API server's message does not name %s: %v", field, err)
	}
	raw, _ := yaml.Marshal(obj)
	doc := validator.Validate(context.Background(), raw)
	if len(doc.Errors) == 0 {
		t.Fatalf("gauntlet validate accepted what the API server refused (%v)", err)
	}
	if msg := doc.Errors.ToAggregate().Error(); !strings.Contains(msg, field) {
		t.Errorf("gauntlet validate's message does not name %s: %s", field, msg)
	}
}
