package specs

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The whole policy, per database mode: targets reachable on their ports only from the run's
// runners, the operator and Prometheus; targets reach the cluster's DNS pods and their
// database only.
func TestTargetNetworkPolicy(t *testing.T) {
	cfg := fixtureConfig()
	cfg.NetworkPolicy = DefaultNetworkPolicy()
	meta := `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: bench-targets-540095bddb
  namespace: perf
  labels:
    app.kubernetes.io/name: gauntlet-target
    app.kubernetes.io/instance: bench-targets-540095bddb
    app.kubernetes.io/part-of: gauntlet
    app.kubernetes.io/managed-by: gauntlet-operator
    gauntlet.dev/run: bench` + ownerYAML + `
spec:
  podSelector: {matchLabels: {app.kubernetes.io/name: gauntlet-target, gauntlet.dev/run: bench}}
  policyTypes: [Ingress, Egress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app.kubernetes.io/name: gauntlet-loadgen, gauntlet.dev/run: bench}}
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: gauntlet-system}}
      podSelector: {matchLabels: {app.kubernetes.io/name: gauntlet, app.kubernetes.io/component: manager}}
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
      podSelector: {matchLabels: {app.kubernetes.io/name: prometheus}}
    ports:
    - {protocol: TCP, port: 8080}
    - {protocol: TCP, port: 9000}
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
      podSelector: {matchLabels: {k8s-app: kube-dns}}
    ports:
    - {protocol: UDP, port: 53}
    - {protocol: TCP, port: 53}`
	direct := fixtureRun()
	direct.Spec.Database.ConnectVia = benchv1.ConnectViaDirect
	noDB := fixtureRun()
	noDB.Spec.Database = nil
	cases := []struct {
		name string
		run  *benchv1.BenchmarkRun
		want string
	}{
		{"through the pooler: its PgBouncer pods only", fixtureRun(), meta + `
  - to:
    - podSelector: {matchLabels: {cnpg.io/poolerName: bench-pooler-6d807b0edb}}
    ports:
    - {protocol: TCP, port: 5432}
`},
		{"direct: the cluster's instances only", direct, meta + `
  - to:
    - podSelector: {matchLabels: {cnpg.io/cluster: bench-db-9ce4039a98}}
    ports:
    - {protocol: TCP, port: 5432}
`},
		{"no database: DNS only", noDB, meta + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertObject(t, TargetNetworkPolicy(c.run, cfg), c.want)
		})
	}
}
