package specs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

var fixtureTrial = plan.Trial{Name: "go.ping.1000.r1", Target: "go", Scenario: "ping", LoadPoint: 1000, Repetition: 1}

func fixturePlan(t *testing.T) workload.Plan {
	t.Helper()
	w, err := workload.Lookup("ping")
	if err != nil {
		t.Fatal(err)
	}
	p, err := workload.Build(workload.Spec{
		BaseURL: TargetBaseURL(fixtureRun(), fixtureRun().Spec.Targets[0]), Requests: w.Requests,
		Load: workload.Load{Model: workload.Open, Rate: 1000}, KeepAlive: true,
		Warmup: 30e9, Measure: 300e9, Tags: PlanTags(fixtureRun(), fixtureTrial),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanTags(t *testing.T) {
	got := PlanTags(fixtureRun(), fixtureTrial)
	want := workload.Tags{TestID: "bench-go-ping-1000-r1-b2dd39f62f-0d1e2f3a", Target: "go", Scenario: "ping", LoadPoint: "1000", Repetition: "1", Runner: "0"}
	if got != want {
		t.Errorf("tags = %+v, want %+v", got, want)
	}
}

const trialMetaYAML = `
  name: bench-go-ping-1000-r1-b2dd39f62f
  namespace: perf
  labels:
    app.kubernetes.io/name: gauntlet-loadgen
    app.kubernetes.io/instance: bench-go-ping-1000-r1-b2dd39f62f
    app.kubernetes.io/part-of: gauntlet
    app.kubernetes.io/managed-by: gauntlet-operator
    gauntlet.dev/run: bench
    gauntlet.dev/target: go
    gauntlet.dev/trial: go.ping.1000.r1` + ownerYAML

func TestPlanConfigMap(t *testing.T) {
	p := fixturePlan(t)
	cm := PlanConfigMap(fixtureRun(), fixtureTrial, p)
	// The data is checked for what it means below; the rest of the object as a whole.
	if got := cm.Data[loadgen.ScriptName]; got != string(loadgen.Script) {
		t.Errorf("%s is not loadgen's script byte for byte", loadgen.ScriptName)
	}
	var back workload.Plan
	if err := json.Unmarshal([]byte(cm.Data[PlanKey]), &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("%s does not hold the plan: %v\n%s", PlanKey, err, cm.Data[PlanKey])
	}
	cm.Data = nil
	assertObject(t, cm, `
apiVersion: v1
kind: ConfigMap
metadata:`+trialMetaYAML+`
`)
}

func TestTestRun(t *testing.T) {
	pod := `
    image: IMAGE
    metadata:
      labels: {app.kubernetes.io/name: gauntlet-loadgen, app.kubernetes.io/part-of: gauntlet, gauntlet.dev/run: bench, gauntlet.dev/trial: go.ping.1000.r1}
    automountServiceAccountToken: "false"
    env:
    - {name: PLAN, value: /etc/gauntlet/plan.json}
    - {name: K6_PROMETHEUS_RW_SERVER_URL, value: "http://prometheus.monitoring.svc:9090/api/v1/write"}
    - {name: K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM, value: "true"}
    - {name: GAUNTLET_RUNNER, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}}NODES
    resources:
      requests: RESOURCES
      limits: RESOURCES
    securityContext: {runAsNonRoot: true, runAsUser: 12345, runAsGroup: 12345, seccompProfile: {type: RuntimeDefault}}
    containerSecurityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
    volumes:
    - name: gauntlet-plan
      configMap: {name: bench-go-ping-1000-r1-b2dd39f62f, items: [{key: plan.json, path: plan.json}]}
    volumeMounts:
    - {name: gauntlet-plan, mountPath: /etc/gauntlet, readOnly: true}`
	// The starter on the runners' pool, fit for a namespace enforcing the restricted standard.
	starter := `
    metadata:
      labels: {app.kubernetes.io/name: gauntlet-loadgen, app.kubernetes.io/part-of: gauntlet, gauntlet.dev/run: bench, gauntlet.dev/trial: go.ping.1000.r1}
    automountServiceAccountToken: "false"NODES
    securityContext: {runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: {type: RuntimeDefault}}
    containerSecurityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}`
	testRunYAML := func(parallelism, image, nodes, resources string) string {
		r := strings.NewReplacer("IMAGE", image, "NODES", nodes, "RESOURCES", resources)
		p := r.Replace(pod)
		return `
apiVersion: k6.io/v1alpha1
kind: TestRun
metadata:` + trialMetaYAML + `
spec:
  parallelism: ` + parallelism + `
  script:
    configMap: {name: bench-go-ping-1000-r1-b2dd39f62f, file: bench.js}
  arguments: >-
    --out experimental-prometheus-rw --no-usage-report --include-system-env-vars
    --tag bench_scenario=ping --tag load_point=1000 --tag repetition=1 --tag target=go
    --tag testid=bench-go-ping-1000-r1-b2dd39f62f-0d1e2f3a --tag runner=$(GAUNTLET_RUNNER)
  runner:` + p + `
  initializer:` + p + `
  starter:` + r.Replace(starter) + `
`
	}
	ownImage := fixtureRun()
	ownImage.Spec.LoadGenerator.Image, ownImage.Spec.LoadGenerator.NodePool = "registry.example/k6:custom", ""
	ownImage.Spec.LoadGenerator.Parallelism, ownImage.Spec.LoadGenerator.Resources.CPU = 0, nil
	cases := []struct {
		name string
		run  func() *benchv1.BenchmarkRun
		want string
	}{
		{"configured k6 on the load generator pool, two runners", fixtureRun,
			testRunYAML("2", "grafana/k6:1.8.1", "\n    nodeSelector: {pool: loadgen}", `{cpu: "4", memory: 2Gi}`)},
		{"own image, any node, defaults", func() *benchv1.BenchmarkRun { return ownImage },
			strings.ReplaceAll(testRunYAML("1", "registry.example/k6:custom", "", `{cpu: "1", memory: 2Gi}`),
				"image: registry.example/k6:custom\n", "image: registry.example/k6:custom\n    imagePullPolicy: Always\n")},
		// 1,000/s needs well under one runner's share: one runner of one CPU, whatever the
		// spec's parallelism; resources.cpu is only the most a runner may have.
		{"auto sizing", func() *benchv1.BenchmarkRun {
			r := fixtureRun()
			r.Spec.LoadGenerator.Sizing = benchv1.SizingAuto
			return r
		}, testRunYAML("1", "grafana/k6:1.8.1", "\n    nodeSelector: {pool: loadgen}", `{cpu: "1", memory: 2Gi}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertObject(t, TestRun(c.run(), fixtureTrial, fixturePlan(t), fixtureConfig()), c.want)
		})
	}

	// A configured starter image (the lab's, built on the node) is used as it is there.
	cfg := fixtureConfig()
	cfg.K6StarterImage = "gauntlet.local/k6-starter:lab"
	want := strings.Replace(testRunYAML("2", "grafana/k6:1.8.1", "\n    nodeSelector: {pool: loadgen}", `{cpu: "4", memory: 2Gi}`),
		"  starter:\n", "  starter:\n    image: gauntlet.local/k6-starter:lab\n    imagePullPolicy: IfNotPresent\n", 1)
	assertObject(t, TestRun(fixtureRun(), fixtureTrial, fixturePlan(t), cfg), want)
}

// Every tag of the plan is on the command line (command-line tags replace the script's),
// and nothing in the arguments would be split apart by k6-operator's split on spaces.
func TestK6ArgumentsCarryEveryPlanTag(t *testing.T) {
	p := fixturePlan(t)
	args := k6Arguments(p.Tags)
	fields := strings.Split(args, " ")
	for k, v := range p.Tags {
		want := "--tag " + k + "=" + v
		if k == "runner" {
			want = "--tag runner=$(GAUNTLET_RUNNER)"
		}
		if !strings.Contains(args, want) {
			t.Errorf("arguments %q lack %q", args, want)
		}
	}
	if got := strings.Count(args, "--tag "); got != len(p.Tags) {
		t.Errorf("%d --tag flags for %d plan tags", got, len(p.Tags))
	}
	for _, f := range fields {
		if f == "" {
			t.Errorf("empty field in %q", args)
		}
	}
}

// A run created again under the same name plans the same TestRun names, but its samples'
// testid differs, so Prometheus's weeks of old series are never read as the new run's.
func TestTestIDDiffersPerRunInstance(t *testing.T) {
	first, again := fixtureRun(), fixtureRun()
	again.UID = "7a8b9c0d-other"
	if TrialName(first, "go.ping.1000.r1") != TrialName(again, "go.ping.1000.r1") {
		t.Fatal("the fixture's two runs should plan the same TestRun name")
	}
	if a, b := TestID(first, "go.ping.1000.r1"), TestID(again, "go.ping.1000.r1"); a == b {
		t.Errorf("testid %s for both instances of the run", a)
	}
}
