package specs

import (
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

const ownerYAML = `
  ownerReferences:
  - {apiVersion: gauntlet.dev/v1alpha1, kind: BenchmarkRun, name: bench, uid: 0d1e2f3a-uid, controller: true, blockOwnerDeletion: true}`

// podSecurityYAML and the container's securityContext below are the restricted profile.
const targetPodTail = `
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: 15
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: {type: RuntimeDefault}
      volumes:
      - {name: tmp, emptyDir: {}}`

const targetContainerTail = `
        imagePullPolicy: IfNotPresent
        readinessProbe: {httpGet: {path: /healthz, port: http, scheme: HTTP}, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 3, successThreshold: 1}
        livenessProbe: {httpGet: {path: /healthz, port: http, scheme: HTTP}, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6, successThreshold: 1}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
        volumeMounts:
        - {name: tmp, mountPath: /tmp}`

func targetLabelsYAML(indent, target string) string {
	l := `
labels:
  app.kubernetes.io/name: gauntlet-target
  app.kubernetes.io/instance: ` + map[string]string{"go": "bench-go-9e7bd95c60", "mine": "bench-mine-fdb2e724bf"}[target] + `
  app.kubernetes.io/part-of: gauntlet
  app.kubernetes.io/managed-by: gauntlet-operator
  gauntlet.dev/run: bench
  gauntlet.dev/target: ` + target
	return strings.ReplaceAll(l, "\n", "\n"+indent)
}

func TestTargetDeployment(t *testing.T) {
	noDB := fixtureRun()
	noDB.Spec.Database = nil
	cases := []struct {
		name   string
		run    *benchv1.BenchmarkRun
		target int
		want   string
	}{{
		name: "preset on a tainted pool, database through the pooler", run: fixtureRun(), target: 0,
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-go-9e7bd95c60
  namespace: perf` + targetLabelsYAML("  ", "go") + ownerYAML + `
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: gauntlet-target, app.kubernetes.io/instance: bench-go-9e7bd95c60}}
  strategy: {type: Recreate}
  template:
    metadata:` + targetLabelsYAML("      ", "go") + `
    spec:
      nodeSelector: {kubernetes.io/arch: amd64}
      tolerations:
      - {key: dedicated, operator: Equal, value: bench, effect: NoSchedule}
      containers:
      - name: target
        image: ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0
        ports:
        - {name: http, containerPort: 8080, protocol: TCP}
        env:
        - {name: PORT, value: "8080"}
        - {name: WORKERS, value: "4"}
        - {name: DB_USER, valueFrom: {secretKeyRef: {name: bench-db-9ce4039a98-app, key: username}}}
        - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: bench-db-9ce4039a98-app, key: password}}}
        - {name: DATABASE_URL, value: "postgres://$(DB_USER):$(DB_PASSWORD)@bench-pooler-6d807b0edb:5432/app?sslmode=verify-full&sslrootcert=/etc/gauntlet/db-ca/ca.crt"}
        - {name: DB_POOL_MIN, value: "5"}
        - {name: DB_POOL_MAX, value: "15"}
        - {name: DB_PREPARED, value: "off"}
        - {name: GOGC, value: "off"}
        resources:
          requests: {cpu: "2", memory: 512Mi}
          limits: {cpu: "2", memory: 512Mi}` + strings.Replace(targetContainerTail, "- {name: tmp, mountPath: /tmp}",
			"- {name: tmp, mountPath: /tmp}\n        - {name: db-ca, mountPath: /etc/gauntlet/db-ca, readOnly: true}", 1) + targetPodTail + `
      - {name: db-ca, secret: {secretName: bench-db-9ce4039a98-ca, items: [{key: ca.crt, path: ca.crt}]}}
status: {}
`,
	}, {
		name: "bring-your-own image on any node, no database", run: noDB, target: 1,
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-mine-fdb2e724bf
  namespace: perf` + targetLabelsYAML("  ", "mine") + ownerYAML + `
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: gauntlet-target, app.kubernetes.io/instance: bench-mine-fdb2e724bf}}
  strategy: {type: Recreate}
  template:
    metadata:` + targetLabelsYAML("      ", "mine") + `
    spec:
      containers:
      - name: target
        image: registry.example/app:1
        ports:
        - {name: http, containerPort: 9000, protocol: TCP}
        env:
        - {name: PORT, value: "9000"}
        - {name: WORKERS, value: "1"}
        resources:
          requests: {cpu: "1", memory: 1Gi}
          limits: {cpu: "1", memory: 1Gi}` + strings.Replace(targetContainerTail, "IfNotPresent", "Always", 1) + targetPodTail + `
status: {}
`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertObject(t, TargetDeployment(c.run, c.run.Spec.Targets[c.target], fixtureConfig()), c.want)
		})
	}
}

func TestTargetService(t *testing.T) {
	run := fixtureRun()
	assertObject(t, TargetService(run, run.Spec.Targets[1]), `
apiVersion: v1
kind: Service
metadata:
  name: bench-mine-fdb2e724bf
  namespace: perf`+targetLabelsYAML("  ", "mine")+ownerYAML+`
spec:
  type: ClusterIP
  selector: {app.kubernetes.io/name: gauntlet-target, app.kubernetes.io/instance: bench-mine-fdb2e724bf}
  ports:
  - {name: http, port: 9000, targetPort: http, protocol: TCP}
  publishNotReadyAddresses: true
status: {loadBalancer: {}}
`)
}

// The database variables follow spec.database: host by connectVia, contract defaults for
// fields a spec built in memory leaves empty, and credentials only by reference.
func TestTargetDatabaseEnv(t *testing.T) {
	cases := []struct {
		name   string
		change func(db *benchv1.Database)
		want   map[string]string
	}{
		{"pooler", func(*benchv1.Database) {},
			map[string]string{"DATABASE_URL": "postgres://$(DB_USER):$(DB_PASSWORD)@bench-pooler-6d807b0edb:5432/app?sslmode=verify-full&sslrootcert=/etc/gauntlet/db-ca/ca.crt",
				"DB_POOL_MIN": "5", "DB_POOL_MAX": "15", "DB_PREPARED": "off"}},
		{"direct, own pool sizes, prepared statements enabled", func(db *benchv1.Database) {
			db.ConnectVia, db.AppPool.Min, db.AppPool.Max, db.PreparedStatements = benchv1.ConnectViaDirect, new(int32), 40, benchv1.PreparedStatementsEnabled
		}, map[string]string{"DATABASE_URL": "postgres://$(DB_USER):$(DB_PASSWORD)@bench-db-9ce4039a98-rw:5432/app?sslmode=verify-full&sslrootcert=/etc/gauntlet/db-ca/ca.crt",
			"DB_POOL_MIN": "0", "DB_POOL_MAX": "40", "DB_PREPARED": "on"}},
		{"not defaulted", func(db *benchv1.Database) {
			db.ConnectVia, db.AppPool, db.PreparedStatements = "", benchv1.AppPool{}, ""
		},
			map[string]string{"DATABASE_URL": "postgres://$(DB_USER):$(DB_PASSWORD)@bench-pooler-6d807b0edb:5432/app?sslmode=verify-full&sslrootcert=/etc/gauntlet/db-ca/ca.crt",
				"DB_POOL_MIN": "5", "DB_POOL_MAX": "15", "DB_PREPARED": "on"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := fixtureRun()
			c.change(run.Spec.Database)
			env := TargetDeployment(run, run.Spec.Targets[0], fixtureConfig()).Spec.Template.Spec.Containers[0].Env
			got := map[string]string{}
			for _, e := range env {
				if e.Name == "DB_USER" || e.Name == "DB_PASSWORD" {
					if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
						t.Errorf("%s must come from the Secret by reference, got %+v", e.Name, e)
					}
					continue
				}
				got[e.Name] = e.Value
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestTargetImageAndURL(t *testing.T) {
	run := fixtureRun()
	if got, err := TargetImage(run.Spec.Targets[0], fixtureConfig()); err != nil || got != "ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0" {
		t.Errorf("preset image = %q, %v", got, err)
	}
	if _, err := TargetImage(benchv1.Target{Name: "x", Preset: "nginx"}, fixtureConfig()); err == nil {
		t.Error("a preset without a configured image must be an error")
	}
	if got, want := TargetBaseURL(run, run.Spec.Targets[0]), "http://bench-go-9e7bd95c60.perf.svc:8080"; got != want {
		t.Errorf("base URL = %q, want %q", got, want)
	}
	if got, want := TargetBaseURL(run, run.Spec.Targets[1]), "http://bench-mine-fdb2e724bf.perf.svc:9000"; got != want {
		t.Errorf("base URL = %q, want %q", got, want)
	}
}
