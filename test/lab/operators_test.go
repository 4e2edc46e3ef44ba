//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

var (
	clusterGVR = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}
	poolerGVR  = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "poolers"}
	testRunGVR = schema.GroupVersionResource{Group: "k6.io", Version: "v1alpha1", Resource: "testruns"}
)

// fullTier: the checks against the three real operators (make lab-test).
func (l *lab) fullTier(t *testing.T) {
	// The one command a newcomer runs (make lab-stack): the operators, Prometheus 3, the
	// chart from the lab's registry, the runs' namespace.
	start := time.Now()
	install := exec.Command(filepath.Join(l.root, "hack/lab/stack.sh"))
	install.Dir = l.root
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("hack/lab/stack.sh: %v\n%s", err, tail(string(out), 60))
	}
	t.Logf("hack/lab/stack.sh took %s:\n%s", time.Since(start).Round(time.Second), grepLines(string(out), "lab: Prometheus ", "lab: chart ", "lab: stack up", "export KUBECONFIG"))
	t.Run("CloudNativePG cluster and pooler answer psql", l.testDatabase)
	t.Run("k6-operator TestRun measured by Prometheus", l.testTestRun)
	if !t.Run("helm install of the chart", l.testHelmInstall) {
		return
	}
	t.Run("gauntlet check on the lab", l.testCheck)
	// Three lanes (go test -parallel 3), each a sequence, balanced by their measured times
	// (docs/lab.md): the seeds, then two short drills; the schedule demo, then a drill that
	// mostly waits; three drills, the same-run pair, GitOps and the namespaced install. The
	// drills' runs load nothing a seed's figures are judged on (no node pool in common, 50m
	// targets), and one lane of seeds beside two of drills fits the node's CPU requests.
	t.Run("seeds and failure drills", func(t *testing.T) {
		t.Run("seeds", func(t *testing.T) {
			t.Parallel()
			// One after another: together they would ask for more CPU than the node has.
			for _, sc := range seedCases {
				t.Run("through the operators: "+sc.name, func(t *testing.T) { l.testSeed(t, sc) })
			}
			t.Run("through the operators: three runners on one target", l.testThreeRunners)
			t.Run("drill: a run deleted", l.testDeleteMidTrial)
			t.Run("drill: a runner killed", l.testRunnerKilled)
		})
		t.Run("a schedule's change point, a node pool that matches no node", func(t *testing.T) {
			t.Parallel()
			t.Run("a schedule's change point", l.testScheduleChangePoint)
			t.Run("drill: a node pool that matches no node", func(t *testing.T) {
				l.testTargetNeverAvailable(t, "drill-no-node", "name: go, preset: go-nethttp, nodePool: nowhere",
					"  nodePools: [{name: nowhere, nodeSelector: {gauntlet.dev/pool: nowhere}}]\n",
					"Unschedulable", "node affinity/selector")
			})
		})
		// The pair (two targets and a runner) after seed 001, whose runners would otherwise
		// wait for the node's CPU requests.
		t.Run("other drills, a same-run pair, GitOps, a namespaced install", func(t *testing.T) {
			t.Parallel()
			t.Run("drill: an image that does not exist", func(t *testing.T) {
				l.testTargetNeverAvailable(t, "drill-no-image", "name: ghost, image: gauntlet.local/does-not-exist:1, port: 8080", "",
					"ghost", "gauntlet.local/does-not-exist:1")
			})
			t.Run("drill: the database's primary deleted mid-trial", l.testDatabaseLostMidTrial)
			t.Run("drill: a TestRun whose starter cannot be scheduled", l.testStarterUnschedulable)
			t.Run("a same-run pair judged through the operators", l.testSameRunPair)
			t.Run("GitOps: Flux applies runs from Git and waits on them", l.testFluxPipeline)
			t.Run("a namespaced install beside the cluster-wide one", l.testNamespacedInstall)
		})
	})
}

func toUnstructured(t *testing.T, obj any) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetOwnerReferences(nil) // no BenchmarkRun object owns them here
	return u
}

// labRun is a BenchmarkRun as the seeds write it, in memory: the specs builders read it.
func labRun(ns string) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: ns},
		Spec: benchv1.BenchmarkRunSpec{
			Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp", Workers: 1, Resources: benchv1.Resources{
				CPU: ptr.To(resource.MustParse("500m")), Memory: ptr.To(resource.MustParse("256Mi")),
			}}},
			Database: &benchv1.Database{
				Instances: 1, Storage: ptr.To(resource.MustParse("1Gi")),
				Pooler: benchv1.Pooler{PoolMode: benchv1.PoolModeTransaction},
			},
		},
	}
}

// testDatabase: a CloudNativePG Cluster of one instance and a transaction-mode Pooler, as
// the operator builds them, become ready, and psql through the Pooler's Service from a pod
// answers SELECT 1.
func (l *lab) testDatabase(t *testing.T) {
	ns := "lab-db"
	if _, err := l.client.CoreV1().Namespaces().Create(ctx(t, time.Minute),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The database's pods go before the next check needs the node's CPU.
	t.Cleanup(func() {
		_ = l.client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	cfg := labConfig(t, l.root)
	run := labRun(ns)
	c := ctx(t, 10*time.Minute)
	schemaCM := specs.SchemaConfigMap(run, cfg)
	schemaCM.OwnerReferences = nil
	if _, err := l.client.CoreV1().ConfigMaps(ns).Create(c, schemaCM, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.dyn.Resource(clusterGVR).Namespace(ns).Create(c, toUnstructured(t, specs.DatabaseCluster(run, cfg)), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Cluster: %v", err)
	}
	if _, err := l.dyn.Resource(poolerGVR).Namespace(ns).Create(c, toUnstructured(t, specs.DatabasePooler(run)), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Pooler: %v", err)
	}
	err := wait.PollUntilContextCancel(c, 3*time.Second, true, func(c context.Context) (bool, error) {
		u, err := l.dyn.Resource(clusterGVR).Namespace(ns).Get(c, specs.ClusterName(run), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		n, _, _ := unstructured.NestedInt64(u.Object, "status", "readyInstances")
		return n == 1, nil
	})
	if err != nil {
		u, _ := l.dyn.Resource(clusterGVR).Namespace(ns).Get(context.Background(), specs.ClusterName(run), metav1.GetOptions{})
		t.Fatalf("Cluster not ready: %v\nstatus: %v\npods:\n%s", err, u, l.selectorDiagnostics(ns, "cnpg.io/cluster="+specs.ClusterName(run)))
	}
	err = wait.PollUntilContextCancel(c, 3*time.Second, true, func(c context.Context) (bool, error) {
		d, err := l.client.AppsV1().Deployments(ns).Get(c, specs.PoolerName(run), metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas >= 1, nil
	})
	if err != nil {
		t.Fatalf("Pooler not ready: %v\n%s", err, l.selectorDiagnostics(ns, "cnpg.io/poolerName="+specs.PoolerName(run)))
	}

	secret := specs.ClusterName(run) + "-app"
	from := func(key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}
	}
	phase, log := l.runPodWith(t, ns, "psql", "gauntlet.local/postgresql:15",
		[]string{"psql", "-tAc", "SELECT 1", fmt.Sprintf("postgres://$(U):$(P)@%s:5432/app?sslmode=disable", specs.PoolerName(run))},
		4*time.Minute, func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "U", ValueFrom: from("username")}, {Name: "P", ValueFrom: from("password")}}
		})
	if phase != corev1.PodSucceeded || strings.TrimSpace(log) != "1" {
		t.Errorf("psql through the Pooler: pod %s, output %q (want 1)", phase, log)
	}
}

// testTestRun: a k6-operator TestRun built as the operator builds it (the static
// loadgen/bench.js and its JSON plan) against the go-nethttp target's Service reaches stage
// finished, its runner exits 0, and Prometheus holds the run's k6 native histogram and the
// target pod's cAdvisor CPU and memory series.
func (l *lab) testTestRun(t *testing.T) {
	ns := l.restrictedNamespace(t, "lab-k6")
	cfg := labConfig(t, l.root)
	run := labRun(ns)
	run.Spec.Database = nil
	run.Spec.Scenarios = []benchv1.Scenario{{Name: "ping", Workload: "ping"}}
	run.Spec.Load = benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100}, Repetitions: 1,
		Warmup: "2s", Duration: "10s"}
	// Half a core is plenty for 100 req/s; the node's two cores also hold the operators,
	// Prometheus, the target and k6-operator's starter (50m).
	run.Spec.LoadGenerator.Resources = benchv1.Resources{CPU: ptr.To(resource.MustParse("500m")), Memory: ptr.To(resource.MustParse("512Mi"))}
	target := run.Spec.Targets[0]
	p, err := preset.Load(filepath.Join(l.root, "targets", target.Preset))
	if err != nil {
		t.Fatal(err)
	}
	eps := make([]string, 0, len(p.Endpoints))
	for _, e := range p.Endpoints {
		eps = append(eps, string(e))
	}
	trials, err := plan.Build(&run.Spec, map[string][]string{p.Name: eps})
	if err != nil {
		t.Fatal(err)
	}
	trial := trials[0]
	k6plan, err := plan.K6Plan(&run.Spec, trial, specs.TargetBaseURL(run, target), specs.PlanTags(run, trial))
	if err != nil {
		t.Fatal(err)
	}
	c := ctx(t, 10*time.Minute)
	dep, svc := specs.TargetDeployment(run, target, cfg), specs.TargetService(run, target)
	dep.OwnerReferences, svc.OwnerReferences = nil, nil
	if _, err := l.client.AppsV1().Deployments(ns).Create(c, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.client.CoreV1().Services(ns).Create(c, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The load goes to a target that answers: a runner against a Service with no endpoints
	// also exits 0, with every request an error.
	if err := wait.PollUntilContextCancel(c, 2*time.Second, true, func(c context.Context) (bool, error) {
		d, err := l.client.AppsV1().Deployments(ns).Get(c, dep.Name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == 1, nil
	}); err != nil {
		t.Fatalf("target not ready: %v\n%s", err, l.selectorDiagnostics(ns, metav1.FormatLabelSelector(dep.Spec.Selector)))
	}
	cm := specs.PlanConfigMap(run, trial, k6plan)
	cm.OwnerReferences = nil
	if _, err := l.client.CoreV1().ConfigMaps(ns).Create(c, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// k6-operator's default starter (ghcr.io/grafana/k6-operator:latest-starter) cannot be
	// pulled here: the operator's --k6-starter-image names the one built here.
	cfg.K6StarterImage = "gauntlet.local/k6-starter:lab"
	tr := specs.TestRun(run, trial, k6plan, cfg)
	tr.SetOwnerReferences(nil)
	if _, err := l.dyn.Resource(testRunGVR).Namespace(ns).Create(c, tr, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create TestRun: %v", err)
	}
	var stage string
	err = wait.PollUntilContextCancel(c, 3*time.Second, true, func(c context.Context) (bool, error) {
		u, err := l.dyn.Resource(testRunGVR).Namespace(ns).Get(c, tr.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		stage, _, _ = unstructured.NestedString(u.Object, "status", "stage")
		return stage == "finished" || stage == "error", nil
	})
	if err != nil || stage != "finished" {
		t.Fatalf("TestRun stage %q (%v)\n%s", stage, err, l.selectorDiagnostics(ns, "k6_cr="+tr.GetName()))
	}
	pods, err := l.client.CoreV1().Pods(ns).List(c, metav1.ListOptions{LabelSelector: "k6_cr=" + tr.GetName() + ",runner=true"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("no runner pods (%v)", err)
	}
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
				t.Errorf("runner %s: %s\n%s", p.Name, cs.State.String(), l.podLog(ns, p.Name))
			}
		}
	}

	// Prometheus, through the API server's service proxy.
	queries := map[string]string{
		"k6 native histogram": `k6_http_req_duration_seconds{phase="measure"}`,
		"target CPU":          fmt.Sprintf(`container_cpu_usage_seconds_total{namespace=%q,container="target"}`, ns),
		"target memory":       fmt.Sprintf(`container_memory_working_set_bytes{namespace=%q,container="target"}`, ns),
	}
	for what, q := range queries {
		var body string
		err := wait.PollUntilContextTimeout(c, 5*time.Second, 2*time.Minute, true, func(c context.Context) (bool, error) {
			raw, err := l.client.CoreV1().Services("monitoring").ProxyGet("http", "prometheus-operated", "9090",
				"/api/v1/query", map[string]string{"query": q}).DoRaw(c)
			body = string(raw)
			if err != nil {
				body = err.Error()
			}
			ok := err == nil && strings.Contains(body, `"result":[{`)
			if what == "k6 native histogram" {
				ok = ok && strings.Contains(body, `"histogram":`) // native, not classic buckets
			}
			return ok, nil
		})
		if err != nil {
			t.Errorf("Prometheus holds no %s series (%s): %s", what, q, body)
		}
	}
}
