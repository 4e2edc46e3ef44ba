//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// drillTargetsTimeout is the chart's timeouts.targets in the lab: long enough for any preset
// to start here (the slowest took 14 s), short enough for the drills that wait it out.
const drillTargetsTimeout = 2 * time.Minute

// drillRun is a small BenchmarkRun for the failure drills: one target on ping at a low
// rate, no database, small requests so that it schedules beside a seed's run; extra is
// more of the spec (its node pools).
func drillRun(t *testing.T, name, target, extra string) *unstructured.Unstructured {
	return drillDoc(t, name, target, "ping", extra)
}

// drillDoc is drillRun with the scenario's workload.
func drillDoc(t *testing.T, name, target, workload, extra string) *unstructured.Unstructured {
	t.Helper()
	doc := fmt.Sprintf(`
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: %s
spec:
  targets:
  - {%s, resources: {cpu: 50m, memory: 64Mi}}
  loadGenerator: {resources: {cpu: 100m, memory: 256Mi}}
  scenarios:
  - {name: %s, workload: %s}
  load:
    model: Open
    rates: [50]
    warmup: 2s
    duration: 60s
    repetitions: 1
    maxVUs: 20
%s`, name, target, workload, workload, extra)
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("drill document: %v\n%s", err, doc)
	}
	return &u
}

// getRun reads a BenchmarkRun; nil when it is gone.
func (l *lab) getRun(c context.Context, ns, name string) (*benchv1.BenchmarkRun, error) {
	u, err := l.dyn.Resource(runGVR).Namespace(ns).Get(c, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var run benchv1.BenchmarkRun
	return &run, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &run)
}

// testTargetNeverAvailable: a run whose target cannot start says why while it waits, in
// the kubelet's or the scheduler's words (want), then fails at the chart's targets timeout
// with TargetsReady=False, reason TargetsTimeout, and the same words: never an endless
// Pending.
func (l *lab) testTargetNeverAvailable(t *testing.T, name, target, extra string, want ...string) {
	ns := l.restrictedNamespace(t, name)
	start := time.Now()
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(ctx(t, time.Minute), drillRun(t, name, target, extra), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	says := func(msg string) bool {
		for _, w := range want {
			if !strings.Contains(msg, w) {
				return false
			}
		}
		return true
	}
	var saidWhy time.Duration
	var run *benchv1.BenchmarkRun
	err := wait.PollUntilContextTimeout(ctx(t, drillTargetsTimeout+3*time.Minute), 3*time.Second, drillTargetsTimeout+2*time.Minute, true,
		func(c context.Context) (bool, error) {
			got, err := l.getRun(c, ns, name)
			if err != nil {
				return false, nil
			}
			run = got
			if cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionTargetsReady); saidWhy == 0 && cond != nil && says(cond.Message) {
				saidWhy = time.Since(start)
			}
			return run.Status.Phase == benchv1.PhaseFailed || run.Status.Phase == benchv1.PhaseSucceeded, nil
		})
	if err != nil || run == nil {
		t.Fatalf("the run did not end within %v (%v); last status: %+v", drillTargetsTimeout+2*time.Minute, err, run)
	}
	took := time.Since(start)
	t.Logf("%s: %s after %s; the waiting condition named the cause after %s", name, run.Status.Phase, took.Round(time.Second), saidWhy.Round(time.Second))
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionTargetsReady)
	if run.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != "TargetsTimeout" {
		t.Fatalf("phase %s, TargetsReady %+v; want Failed with TargetsReady=False, reason TargetsTimeout\n%s", run.Status.Phase, cond, conditions(run.Status.Conditions))
	}
	if !says(cond.Message) {
		t.Errorf("TargetsReady's message does not say %q:\n%s", want, cond.Message)
	}
	if saidWhy == 0 {
		t.Errorf("while waiting, no TargetsReady message said %q", want)
	}
	if took < drillTargetsTimeout {
		t.Errorf("failed after %s, before the targets timeout of %s", took, drillTargetsTimeout)
	}
	if ready := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionReady); ready == nil || ready.Status != metav1.ConditionFalse {
		t.Errorf("Ready condition %+v, want False on a failed run", ready)
	}
	if stalled := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionStalled); stalled == nil || stalled.Status != metav1.ConditionTrue {
		t.Errorf("Stalled condition %+v, want True on a failed run", stalled)
	}
}

// testDeleteMidTrial: a BenchmarkRun deleted while its trial's TestRun loads the target.
// The TestRun goes before the run does (the finalizer stops the load first), and once the
// run is gone nothing it made is left in its namespace.
func (l *lab) testDeleteMidTrial(t *testing.T) {
	name := "drill-deleted"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 10*time.Minute)
	// Deletions of the run and its TestRuns, in the order the API server saw them.
	var mu sync.Mutex
	var deleted []string
	watchDeletes := func(gvr schema.GroupVersionResource, kind string) {
		w, err := l.dyn.Resource(gvr).Namespace(ns).Watch(c, metav1.ListOptions{})
		if err != nil {
			t.Errorf("watch %s: %v", kind, err)
			return
		}
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Deleted {
					mu.Lock()
					deleted = append(deleted, kind)
					mu.Unlock()
				}
			}
		}()
	}
	watchDeletes(runGVR, "BenchmarkRun")
	watchDeletes(testRunGVR, "TestRun")

	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, drillRun(t, name, "name: go, preset: go-nethttp", ""), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	// Mid-trial: the target's own trial (not the generator floor's) is running and its
	// TestRun exists.
	err := l.waitTargetTrial(c, ns, name)
	if err != nil {
		t.Fatalf("waiting for the trial: %v", err)
	}
	start := time.Now()
	if err := l.dyn.Resource(runGVR).Namespace(ns).Delete(c, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(c, time.Second, 3*time.Minute, true, func(c context.Context) (bool, error) {
		_, err := l.getRun(c, ns, name)
		return err != nil, nil
	})
	if err != nil {
		t.Fatalf("the deleted run is still there after 3 minutes: %v", err)
	}
	t.Logf("deleted mid-trial: gone in %s", time.Since(start).Round(time.Second))
	time.Sleep(2 * time.Second) // the watches' last events
	mu.Lock()
	order := strings.Join(deleted, " ")
	mu.Unlock()
	if !strings.HasPrefix(order, "TestRun") || !strings.HasSuffix(order, "BenchmarkRun") {
		t.Errorf("deletions in order %q: want the TestRun first and the BenchmarkRun last", order)
	}
	// Nothing left: every kind the operator creates, and the pods behind them.
	err = wait.PollUntilContextTimeout(c, 2*time.Second, 2*time.Minute, true, func(c context.Context) (bool, error) {
		return l.leftIn(c, ns) == "", nil
	})
	if err != nil {
		t.Errorf("left in the namespace after the run was deleted: %s", l.leftIn(context.Background(), ns))
	}
}

// leftBehind are the kinds a run creates, and the pods behind them.
var leftBehind = []struct {
	kind string
	gvr  schema.GroupVersionResource
}{
	{"Deployment", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	{"Service", schema.GroupVersionResource{Version: "v1", Resource: "services"}},
	{"ConfigMap", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
	{"NetworkPolicy", schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}},
	{"Pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
	{"TestRun", testRunGVR},
	{"Cluster", clusterGVR},
	{"Pooler", poolerGVR},
}

// leftIn lists what a run could have left in ns ("" when nothing); a listing that fails
// is named too, so an error never passes for a clean namespace.
func (l *lab) leftIn(c context.Context, ns string) string {
	var left []string
	for _, k := range leftBehind {
		list, err := l.dyn.Resource(k.gvr).Namespace(ns).List(c, metav1.ListOptions{})
		if err != nil {
			left = append(left, fmt.Sprintf("%s (listing failed: %v)", k.kind, err))
			continue
		}
		for _, o := range list.Items {
			if k.kind == "ConfigMap" && o.GetName() == "kube-root-ca.crt" { // every namespace's own
				continue
			}
			left = append(left, k.kind+"/"+o.GetName())
		}
	}
	return strings.Join(left, ", ")
}

// managerRestart is the manager-restart drill's record: TestRun creations by name, and
// when the manager's pod was deleted.
type managerRestart struct {
	done    chan struct{} // closed when restartManagerMidTrial returns
	mu      sync.Mutex
	added   map[string]int
	deleted string // the deleted pod, "" until then
	err     error
}

// watchTestRuns counts every TestRun created in ns, from before the run exists.
func (l *lab) watchTestRuns(t *testing.T, ns string) *managerRestart {
	r := &managerRestart{added: map[string]int{}, done: make(chan struct{})}
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := l.dyn.Resource(testRunGVR).Namespace(ns).Watch(c, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch TestRuns: %v", err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type == watch.Added {
				r.mu.Lock()
				r.added[u.GetName()]++
				r.mu.Unlock()
			}
		}
	}()
	return r
}

// restartManagerMidTrial deletes the manager's pod once a target's trial runs (its
// Deployment starts another; leader election hands over).
func (l *lab) restartManagerMidTrial(t *testing.T, ns, name string, r *managerRestart) {
	defer close(r.done)
	c := ctx(t, 20*time.Minute)
	midTrial := false
	err := wait.PollUntilContextCancel(c, 2*time.Second, true, func(c context.Context) (bool, error) {
		run, err := l.getRun(c, ns, name)
		if err != nil {
			return false, nil
		}
		for _, tr := range run.Status.Trials {
			if !tr.Calibration && tr.Phase == benchv1.TrialRunning {
				midTrial = true
				return true, nil
			}
		}
		if run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed {
			return false, fmt.Errorf("the run ended (%s) before a target's trial was seen running", run.Status.Phase)
		}
		return false, nil
	})
	if err == nil && midTrial {
		var pods *corev1.PodList
		// The manager's pods only: the wire agents beside them hold the trial's capture.
		if pods, err = l.client.CoreV1().Pods(installNamespace).List(c, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=manager"}); err == nil {
			for _, p := range pods.Items {
				if err = l.client.CoreV1().Pods(installNamespace).Delete(c, p.Name, metav1.DeleteOptions{}); err == nil {
					r.mu.Lock()
					r.deleted = p.Name
					r.mu.Unlock()
					fmt.Printf("manager pod %s deleted mid-trial\n", p.Name)
				}
			}
		}
	}
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

// check: the manager's pod was deleted mid-trial and every TestRun was created once.
func (r *managerRestart) check(t *testing.T) {
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		t.Errorf("the manager-restart drill did not finish")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.deleted == "" {
		t.Errorf("the manager's pod was not deleted mid-trial (%v)", r.err)
	}
	if len(r.added) == 0 {
		t.Errorf("no TestRun was seen created")
	}
	for name, n := range r.added {
		if n != 1 {
			t.Errorf("TestRun %s created %d times across the manager's restart, want once", name, n)
		}
	}
	t.Logf("manager restarted mid-trial (%s deleted); %d TestRuns, each created once", r.deleted, len(r.added))
}

// testDatabaseLostMidTrial: CloudNativePG's primary pod deleted while a target's trial
// queries it through the Pooler. The trial and the run fail with DatabaseChanged naming the
// pod (errors measured during a failover are not the target's), the trial's TestRun is
// stopped, CloudNativePG brings the database back (the run keeps it: cleanup Never), and
// once the run is deleted nothing of it is left, database included.
func (l *lab) testDatabaseLostMidTrial(t *testing.T) {
	name := "drill-db-lost"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 15*time.Minute)
	cluster := specs.ClusterName(&benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}})
	doc := drillDoc(t, name, "name: go, preset: go-nethttp", "db-ping",
		"  database: {connectVia: Pooler}\n  cleanup: {policy: Never}\n")
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, doc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	if err := l.waitTargetTrial(c, ns, name); err != nil {
		t.Fatalf("waiting for the trial: %v", err)
	}
	// The PgBouncer pods carry the cluster's label too: the primary by its role.
	pods, err := l.client.CoreV1().Pods(ns).List(c, metav1.ListOptions{LabelSelector: "cnpg.io/cluster=" + cluster + ",cnpg.io/instanceRole=primary"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("the Cluster's primary pods: %v (%v); want one\n%s", err, podNames(pods), l.selectorDiagnostics(ns, "cnpg.io/cluster="+cluster))
	}
	primary := pods.Items[0].Name
	if err := l.client.CoreV1().Pods(ns).Delete(c, primary, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var run *benchv1.BenchmarkRun
	err = wait.PollUntilContextTimeout(c, 2*time.Second, 3*time.Minute, true, func(c context.Context) (bool, error) {
		got, err := l.getRun(c, ns, name)
		if err == nil {
			run = got
		}
		return err == nil && (got.Status.Phase == benchv1.PhaseFailed || got.Status.Phase == benchv1.PhaseSucceeded), nil
	})
	if err != nil {
		t.Fatalf("the run did not end within 3 minutes of the primary's deletion: %v; last status %+v", err, run)
	}
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete)
	t.Logf("primary %s deleted: run %s after %s: %+v", primary, run.Status.Phase, time.Since(start).Round(time.Second), cond)
	if run.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != "DatabaseChanged" || !strings.Contains(cond.Message, "database") {
		t.Fatalf("phase %s, Complete %+v; want Failed, reason DatabaseChanged\n%s", run.Status.Phase, cond, conditions(run.Status.Conditions))
	}
	// The failed trial's load is stopped: its TestRun, still loading, is deleted (the
	// generator floor's, finished, is kept for debugging with --keep-finished-testruns).
	var loading string
	for _, tr := range run.Status.Trials {
		if !tr.Calibration && tr.Phase == benchv1.TrialFailed {
			loading = tr.TestRun
		}
	}
	if loading == "" {
		t.Fatalf("no failed target trial in status: %+v", run.Status.Trials)
	}
	err = wait.PollUntilContextTimeout(c, 2*time.Second, 2*time.Minute, true, func(c context.Context) (bool, error) {
		_, err := l.dyn.Resource(testRunGVR).Namespace(ns).Get(c, loading, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("the failed trial's TestRun %s is still there 2 minutes after the run failed", loading)
	}
	// CloudNativePG brings the instance back on its volume.
	err = wait.PollUntilContextTimeout(c, 3*time.Second, 4*time.Minute, true, func(c context.Context) (bool, error) {
		u, err := l.dyn.Resource(clusterGVR).Namespace(ns).Get(c, cluster, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyInstances")
		return phase == "Cluster in healthy state" && ready == 1, nil
	})
	if err != nil {
		t.Errorf("the Cluster did not come back healthy within 4 minutes: %v\n%s", err, l.selectorDiagnostics(ns, "cnpg.io/cluster="+cluster))
	}
	if err := l.dyn.Resource(runGVR).Namespace(ns).Delete(c, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(c, 2*time.Second, 3*time.Minute, true, func(c context.Context) (bool, error) {
		return l.leftIn(c, ns) == "", nil
	})
	if err != nil {
		t.Errorf("left in the namespace after the run was deleted: %s", l.leftIn(context.Background(), ns))
	}
}

// waitTargetTrial waits until a target's own trial (not the generator floor's) runs and
// its TestRun exists.
func (l *lab) waitTargetTrial(c context.Context, ns, name string) error {
	return wait.PollUntilContextTimeout(c, 2*time.Second, 6*time.Minute, true, func(c context.Context) (bool, error) {
		run, err := l.getRun(c, ns, name)
		if err != nil {
			return false, nil
		}
		if run.Status.Phase == benchv1.PhaseFailed || run.Status.Phase == benchv1.PhaseSucceeded {
			return false, fmt.Errorf("the run ended (%s) before its trial could be interrupted: %s", run.Status.Phase, conditions(run.Status.Conditions))
		}
		for _, tr := range run.Status.Trials {
			if !tr.Calibration && tr.Phase == benchv1.TrialRunning && tr.MeasureStart != nil {
				trs, err := l.dyn.Resource(testRunGVR).Namespace(ns).List(c, metav1.ListOptions{})
				return err == nil && len(trs.Items) > 0, nil
			}
		}
		return false, nil
	})
}

func podNames(pods *corev1.PodList) []string {
	var names []string
	if pods != nil {
		for _, p := range pods.Items {
			names = append(names, p.Name)
		}
	}
	return names
}

// drillUnschedulableTimeout is the chart's timeouts.unschedulable in the lab: the starter
// drill waits it out, and a seed's pod that waits for CPU a drill holds may wait this long.
const drillUnschedulableTimeout = 3 * time.Minute

// testStarterUnschedulable: k6-operator's starter pod cannot be scheduled (as when it found
// no CPU beside the drills in a cold lab run), so the runners wait for a start signal that
// never comes. The operator names the starter and the scheduler's words while it waits, and
// fails the trial and the run with them within its Unschedulable deadline, long before the
// TestRun's own deadlines. k6-operator gives the starter a fixed CPU request (50m) and the
// BenchmarkRun no field for it: the drill adds a node selector no node matches to the target
// trial's TestRun's starter the moment the operator creates it, well before k6-operator
// creates the starter (after its initializer has run and every runner runs).
func (l *lab) testStarterUnschedulable(t *testing.T) {
	name := "drill-no-starter"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 12*time.Minute)
	w, err := l.dyn.Resource(testRunGVR).Namespace(ns).Watch(c, metav1.ListOptions{LabelSelector: specs.LabelTarget + "=go"})
	if err != nil {
		t.Fatalf("watch TestRuns: %v", err)
	}
	patched := make(chan string, 1)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type != watch.Added {
				continue
			}
			patch := []byte(`{"spec":{"starter":{"nodeSelector":{"gauntlet.dev/drill":"no-such-node"}}}}`)
			if _, err := l.dyn.Resource(testRunGVR).Namespace(ns).Patch(c, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				t.Errorf("giving the starter of TestRun %s a node selector no node matches: %v", u.GetName(), err)
			}
			patched <- u.GetName()
			return
		}
	}()
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, drillRun(t, name, "name: go, preset: go-nethttp", ""), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	var testRun string
	select {
	case testRun = <-patched:
	case <-time.After(8 * time.Minute):
		t.Fatalf("no TestRun of the target's trial within 8 minutes\n%s", l.runDiagnostics(ns, name))
	}
	start := time.Now()
	starter := testRun + "-starter-"
	says := func(msg string) bool {
		return strings.Contains(msg, "starter pod "+starter) && strings.Contains(msg, "node affinity/selector")
	}
	var saidWhy time.Duration
	var run *benchv1.BenchmarkRun
	limit := drillUnschedulableTimeout + 3*time.Minute // the starter's creation, then the deadline
	err = wait.PollUntilContextTimeout(c, 2*time.Second, limit, true, func(c context.Context) (bool, error) {
		got, err := l.getRun(c, ns, name)
		if err != nil {
			return false, nil
		}
		run = got
		if cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete); saidWhy == 0 && cond != nil &&
			run.Status.Phase == benchv1.PhaseRunning && says(cond.Message) {
			saidWhy = time.Since(start)
		}
		return run.Status.Phase == benchv1.PhaseFailed || run.Status.Phase == benchv1.PhaseSucceeded, nil
	})
	if err != nil || run == nil {
		t.Fatalf("the run did not end within %v of its TestRun's creation (%v); last status: %+v\n%s", limit, err, run,
			l.selectorDiagnostics(ns, "k6_cr="+testRun))
	}
	took := time.Since(start)
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete)
	t.Logf("%s: %s %s after its TestRun's creation; the waiting condition named the starter after %s: %+v", name, run.Status.Phase,
		took.Round(time.Second), saidWhy.Round(time.Second), cond)
	if run.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != "LoadUnschedulable" || !says(cond.Message) {
		t.Fatalf("phase %s, Complete %+v; want Failed, reason LoadUnschedulable, naming the starter pod and its node selector\n%s",
			run.Status.Phase, cond, conditions(run.Status.Conditions))
	}
	if saidWhy == 0 {
		t.Errorf("while the trial waited, Complete never named the starter pod and its node selector")
	}
	if took < drillUnschedulableTimeout {
		t.Errorf("failed after %s, before the Unschedulable deadline of %s", took, drillUnschedulableTimeout)
	}
	evs, err := l.client.CoreV1().Events(ns).List(c, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",reason=LoadUnschedulable"})
	named := false
	if err == nil {
		for _, e := range evs.Items {
			named = named || says(e.Message)
		}
	}
	if !named {
		t.Errorf("LoadUnschedulable events on the run: %v (%v), want one naming the starter", evs, err)
	}
	// The failed trial's load stops: its TestRun and pods go.
	err = wait.PollUntilContextTimeout(c, 2*time.Second, 2*time.Minute, true, func(c context.Context) (bool, error) {
		_, err := l.dyn.Resource(testRunGVR).Namespace(ns).Get(c, testRun, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("the failed trial's TestRun %s is still there 2 minutes after the run failed", testRun)
	}
}

// runDiagnostics is a run's phase and conditions, or why it cannot be read.
func (l *lab) runDiagnostics(ns, name string) string {
	run, err := l.getRun(context.Background(), ns, name)
	if err != nil {
		return err.Error()
	}
	return string(run.Status.Phase) + "\n" + conditions(run.Status.Conditions)
}
