package specs

import (
	"testing"
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
		{name: "on the targets' tainted pool", pool: "amd", object: "bench-null-amd", pod: `
      nodeSelector: {kubernetes.io/arch: amd64}
      tolerations:
      - {key: dedicated, operator: Equal, value: bench, effect: NoSchedule}`},
		{name: "targets with no pool", pool: "", object: "bench-null"},
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
