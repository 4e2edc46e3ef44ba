package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// stallServer accepts every request and never answers: a target whose contract checks
// hang. Each request is let go when its client gives up.
func stallServer(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(func() { s.CloseClientConnections(); s.Close() })
	return s
}

// Every wait of a run has a deadline, from the operator's configuration (3 s each here),
// and a create the API server refuses fails the run at once with the API server's
// message. Each case ends Failed with the step condition saying what was waited for,
// cleanup done (the policy's objects, and always the TestRuns still loading, with their
// pods), and its node pool free for the next run.
func TestEveryWaitHasADeadline(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "deadlines"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Timeouts = Timeouts{Database: 3 * time.Second, Targets: 3 * time.Second, Verify: 3 * time.Second,
			TrialStart: 3 * time.Second, TrialFinish: 3 * time.Second, Poll: 200 * time.Millisecond,
			Grace: time.Second, Measure: 5 * time.Second}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	stall := stallServer(t)

	cases := []struct {
		name      string
		setup     func(run *benchv1.BenchmarkRun)
		condition string
		reason    string
		message   []string
		testRun   bool // the run got as far as a TestRun
	}{
		{"database-never-ready", func(run *benchv1.BenchmarkRun) {
			run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaDirect}
			fakes.mu.Lock()
			fakes.dbNever[specs.ClusterName(run)] = true
			fakes.mu.Unlock()
		}, benchv1.ConditionDatabaseReady, benchv1.ReasonDatabaseTimeout, []string{"did not become ready within 3s", "Setting up primary"}, false},
		{"target-never-available", func(run *benchv1.BenchmarkRun) {
			fakes.mu.Lock()
			fakes.depNever[ns+"/"+specs.TargetName(run, "go")] = true
			fakes.mu.Unlock()
		}, benchv1.ConditionTargetsReady, benchv1.ReasonTargetsTimeout, []string{"did not become available within 3s of their creation", "go (0/1 available)"}, false},
		{"target-pool-matches-no-node", func(run *benchv1.BenchmarkRun) {
			fakes.mu.Lock()
			fakes.depNoNode[ns+"/"+specs.TargetName(run, "go")] = true
			fakes.mu.Unlock()
		}, benchv1.ConditionTargetsReady, benchv1.ReasonTargetsTimeout, []string{"did not become available within 3s of their creation",
			"go (0/1 available; Unschedulable: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.)"}, false},
		{"verification-stalls", func(run *benchv1.BenchmarkRun) {
			urlsMu.Lock()
			urls[run.Namespace+"/"+run.Name+"/go"] = stall.URL
			urlsMu.Unlock()
		}, benchv1.ConditionTargetsVerified, benchv1.ReasonVerifyTimeout, []string{"go failed verification", "did not finish its contract checks within 3s"}, false},
		{"k6-operator-down", func(run *benchv1.BenchmarkRun) {
			fakes.script(run.Name, &k6Outcome{down: true})
		}, benchv1.ConditionComplete, benchv1.ReasonTrialTimeout, []string{"did not start its runners within 3s", `stage ""`, "0 of 1 found"}, true},
		{"runners-unschedulable", func(run *benchv1.BenchmarkRun) {
			fakes.script(run.Name, &k6Outcome{unschedulable: true})
		}, benchv1.ConditionComplete, benchv1.ReasonTrialTimeout, []string{"did not start its runners within 3s", `stage "created"`,
			"Unschedulable: 0/3 nodes are available"}, true},
		// Lost runners fail the trial at once, not at the TrialFinish deadline. The manager's
		// cache may show the pod being deleted ("k6 runner pod ... was deleted while TestRun
		// ... loaded the target") or already gone ("1 of TestRun ...'s 1 k6 runner pods are
		// gone while it loaded the target"): which, depends on when it looks (a loaded
		// machine showed the first), and both name the TestRun and the cause.
		{"runner-pod-lost", func(run *benchv1.BenchmarkRun) {
			fakes.script(run.Name, &k6Outcome{losePods: true})
		}, benchv1.ConditionComplete, benchv1.ReasonTrialFailed, []string{"TestRun deadline-runner-pod-lost-go-ping-100-r1-",
			"k6 runner pod", "loaded the target", "node lost"}, true},
		// A node selector value the schema lets through and the API server refuses in a pod.
		// A toleration key the CRD lets through and the API server refuses in a pod (an
		// invalid node selector is refused earlier, at the pool lock: specs.CheckSpec).
		{"create-refused", func(run *benchv1.BenchmarkRun) {
			run.Spec.NodePools[0].Tolerations = []benchv1.Toleration{{Key: "create refused!", Operator: "Exists"}}
		}, benchv1.ConditionTargetsReady, benchv1.ReasonCreateRefused, []string{"the API server refused Deployment", "Invalid", "name part must consist of"}, false},
		{"selector-refused", func(run *benchv1.BenchmarkRun) {
			run.Spec.NodePools[0].NodeSelector = map[string]string{"gauntlet.test/pool": "selector refused!"}
		}, benchv1.ConditionAccepted, benchv1.ReasonInvalidSpec, []string{"spec.nodePools[0].nodeSelector", "a valid label must be"}, false},
		// A negative CPU is refused when the run is accepted, before anything is created.
		{"cpu-refused", func(run *benchv1.BenchmarkRun) {
			cpu := resource.MustParse("-1")
			run.Spec.Targets[0].Resources.CPU = &cpu
		}, benchv1.ConditionAccepted, benchv1.ReasonInvalidSpec, []string{"spec.targets[0].resources.cpu", "cpu must be above 0"}, false},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				run := pingRun("deadline-" + c.name)
				run.Namespace = ns
				// A pool of its own, so the cases do not wait for each other.
				run.Spec.NodePools = []benchv1.NodePool{{Name: "pool", NodeSelector: map[string]string{"gauntlet.test/pool": c.name}}}
				run.Spec.Targets[0].NodePool = "pool"
				run.Spec.Cleanup.Policy = "Always"
				if c.testRun {
					run.Spec.Cleanup.Policy = "Never" // the TestRun still goes: it may still load the pool
				}
				c.setup(run)
				if err := env.Client.Create(ctx, run); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
				got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
				cond := meta.FindStatusCondition(got.Status.Conditions, c.condition)
				if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != c.reason {
					t.Fatalf("phase %s, %s = %+v", got.Status.Phase, c.condition, cond)
				}
				for _, m := range c.message {
					if !strings.Contains(cond.Message, m) {
						t.Errorf("message %q does not say %q", cond.Message, m)
					}
				}
				t.Logf("%s: %s", c.condition, cond.Message)
				if c.testRun {
					if got.Status.Trials[0].Phase != benchv1.TrialFailed || got.Status.Trials[0].TestRun == "" {
						t.Errorf("trial %+v, want Failed with its TestRun", got.Status.Trials[0])
					}
					waitNoLoad(t, got)
				} else {
					waitGone(t, got)
				}
				// The pool is free once the pods the run keeps are gone (its cleanup scales
				// them to zero): a later run on the same nodes is not held back.
				probe := run.DeepCopy()
				probe.Name, probe.UID, probe.CreationTimestamp = "probe", "probe-uid", metav1.NewTime(time.Now().Add(time.Hour))
				for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
					holder, err := (&BenchmarkRunReconciler{Client: env.Client, APIReader: env.Client}).nodePoolHolder(ctx, probe)
					if err == nil && holder == "" {
						break
					}
					if time.Now().After(deadline) {
						t.Errorf("the node pool is still held: %q, %v", holder, err)
						break
					}
				}
			})
		}
	})
}

// waitNoLoad waits until none of the run's TestRuns and k6 pods is left.
func waitNoLoad(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		trs := &unstructured.UnstructuredList{}
		trs.SetGroupVersionKind(specs.TestRunGVK.GroupVersion().WithKind("TestRunList"))
		pods := &corev1.PodList{}
		if err := env.Client.List(context.Background(), trs, client.InNamespace(run.Namespace),
			client.MatchingLabels{specs.LabelRun: specs.LabelValue(run.Name)}); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.List(context.Background(), pods, client.InNamespace(run.Namespace),
			client.MatchingLabels{"k6_cr": run.Status.Trials[0].TestRun}); err != nil {
			t.Fatal(err)
		}
		if len(trs.Items) == 0 && len(pods.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still loading: %d TestRuns, %d k6 pods", len(trs.Items), len(pods.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
