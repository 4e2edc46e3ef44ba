package specs

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// fixtureRun is a run as the API server stores it after defaulting: two targets (a preset on a
// tainted pool, a bring-your-own image), a load generator pool and seed 001's database.
func fixtureRun() *benchv1.BenchmarkRun {
	q := resource.MustParse
	qp := func(s string) *resource.Quantity { v := q(s); return &v }
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "perf", UID: "0d1e2f3a-uid"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets: []benchv1.Target{
				{Name: "go", Preset: "go-nethttp", Workers: 4, NodePool: "amd",
					Resources: benchv1.Resources{CPU: qp("2"), Memory: qp("512Mi")},
					Env:       []benchv1.EnvVar{{Name: "GOGC", Value: "off"}}},
				{Name: "mine", Image: "registry.example/app:1", Port: ptr.To[int32](9000), Workers: 1,
					Resources: benchv1.Resources{CPU: qp("1"), Memory: qp("1Gi")}},
			},
			NodePools: []benchv1.NodePool{
				{Name: "amd", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"},
					Tolerations: []benchv1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "bench", Effect: "NoSchedule"}}},
				{Name: "loadgen", NodeSelector: map[string]string{"pool": "loadgen"}},
			},
			LoadGenerator: benchv1.LoadGenerator{NodePool: "loadgen", Parallelism: 2,
				Resources: benchv1.Resources{CPU: qp("4"), Memory: qp("2Gi")}},
			Database: &benchv1.Database{
				Instances: 1, Storage: qp("10Gi"),
				Parameters: map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
					"wal_level": "minimal", "shared_buffers": "256MB", "work_mem": "16MB", "max_connections": "200"},
				Pooler: benchv1.Pooler{Instances: 1, PoolMode: benchv1.PoolModeTransaction,
					Parameters: map[string]string{"default_pool_size": "50", "max_client_conn": "500"}},
				ConnectVia:         benchv1.ConnectViaPooler,
				AppPool:            benchv1.AppPool{Min: ptr.To[int32](5), Max: 15},
				PreparedStatements: benchv1.PreparedStatementsDisabled,
			},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{1000}, Warmup: "30s", Duration: "5m", Repetitions: 1},
		},
	}
}

func fixtureConfig() Config {
	return Config{
		Images:                   map[string]string{"go-nethttp": "ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0"},
		K6Image:                  DefaultK6Image,
		PrometheusRemoteWriteURL: "http://prometheus.monitoring.svc:9090/api/v1/write",
		SchemaSQL:                "CREATE TABLE t (id int);\n",
	}
}

// assertObject compares a whole object with its expected YAML, through JSON, so the
// expectation reads like the manifest that reaches the API server.
func assertObject(t *testing.T, got any, want string) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := yaml.YAMLToJSON([]byte(want))
	if err != nil {
		t.Fatalf("expected YAML: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(gotJSON, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(wantJSON, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		gotYAML, _ := yaml.JSONToYAML(gotJSON)
		t.Errorf("object differs from the expectation; got:\n%s", gotYAML)
	}
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
