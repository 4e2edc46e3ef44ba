package specs

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestNullResponder(t *testing.T) {
	run := fixtureRun()
	cfg := fixtureConfig()
	cfg.NullResponderImage = "ghcr.io/gauntlet-bench/gauntlet:0.1.0"
	labelsYAML := func(indent, name string) string {
		return "\n" + indent + "labels: {app.kubernetes.io/name: gauntlet-null-responder, app.kubernetes.io/instance: " + name +
			", app.kubernetes.io/part-of: gauntlet, app.kubernetes.io/managed-by: gauntlet-operator, gauntlet.dev/run: bench}"
	}
	for _, c := range []struct {
		name, pool, object, pod string
	}{
		{name: "on the targets' tainted pool", pool: "amd", object: "bench-null-amd-030b1cd548", pod: `
      nodeSelector: {kubernetes.io/arch: amd64}
      tolerations:
      - {key: dedicated, operator: Equal, value: bench, effect: NoSchedule}`},
		{name: "targets with no pool", pool: "", object: "bench-null-ee5182b4d3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assertObject(t, NullResponderDeployment(run, c.pool, cfg), `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: `+c.object+`
  namespace: perf`+labelsYAML("  ", c.object)+ownerYAML+`
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: gauntlet-null-responder, app.kubernetes.io/instance: `+c.object+`}}
  strategy: {type: Recreate}
  template:
    metadata:`+labelsYAML("      ", c.object)+`
    spec:`+c.pod+`
      containers:
      - name: null-responder
        image: ghcr.io/gauntlet-bench/gauntlet:0.1.0
        imagePullPolicy: IfNotPresent
        command: [/gauntlet, null-responder, --listen, ":8080"]
        ports:
        - {name: http, containerPort: 8080, protocol: TCP}
        resources:
          requests: {cpu: "1", memory: 64Mi}
          limits: {cpu: "1", memory: 64Mi}
        readinessProbe: {httpGet: {path: /healthz, port: http, scheme: HTTP}, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 3, successThreshold: 1}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: 5
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: {type: RuntimeDefault}
status: {}
`)
			assertObject(t, NullResponderService(run, c.pool), `
apiVersion: v1
kind: Service
metadata:
  name: `+c.object+`
  namespace: perf`+labelsYAML("  ", c.object)+ownerYAML+`
spec:
  type: ClusterIP
  selector: {app.kubernetes.io/name: gauntlet-null-responder, app.kubernetes.io/instance: `+c.object+`}
  ports:
  - {name: http, port: 8080, targetPort: http, protocol: TCP}
status: {loadBalancer: {}}
`)
			if got, want := NullResponderBaseURL(run, c.pool), "http://"+c.object+".perf.svc:8080"; got != want {
				t.Errorf("base URL %s, want %s", got, want)
			}
		})
	}
}

func TestNullResponderCPUFollowsThePoolsTargets(t *testing.T) {
	cpu := func(v string) *resource.Quantity { q := resource.MustParse(v); return &q }
	run := fixtureRun()
	run.Spec.Targets = []benchv1.Target{
		{Name: "a", NodePool: "small", Resources: benchv1.Resources{CPU: cpu("200m")}},
		{Name: "b", NodePool: "small", Resources: benchv1.Resources{CPU: cpu("300m")}},
		{Name: "c", NodePool: "big", Resources: benchv1.Resources{CPU: cpu("4")}},
		{Name: "d", NodePool: "default"},
	}
	for pool, want := range map[string]string{
		"small":   "300m", // the largest of its targets: it schedules where they do
		"big":     "1",    // never more than one CPU: it answers without work
		"default": "1",    // an unset CPU is the schema's default, 1
		"none":    "1",    // no target on the pool
	} {
		if got := nullResponderCPU(run, pool); got.String() != want {
			t.Errorf("pool %s: cpu %s, want %s", pool, got.String(), want)
		}
	}
}
