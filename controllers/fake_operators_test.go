package controllers

// The other controllers' parts, played as the real ones play them, in one place:
// CloudNativePG (Cluster status phase, Ready condition, readyInstances; the <cluster>-app
// Secret; the Pooler's Deployment), the kubelet and Deployment controller (available
// replicas), and k6-operator (TestRun stages initialization → initialized → created →
// started → stopped → finished, or error; runner pods labelled app=k6, k6_cr=<name>,
// runner=true, whose containers terminate with k6's exit code). Runners run the real k6
// (k6process_test.go) with the TestRun's arguments and environment against the real local
// Prometheus; the kubelet's cAdvisor reports the real target process's CPU and memory.

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

// k6Outcome scripts a TestRun instead of running k6: an error stage, or runners exiting
// with a code. hold keeps the runners going until it is closed.
type k6Outcome struct {
	errorStage string // "" or the stage after which k6-operator reports error
	exitCode   int32
	hold       chan struct{}
	// down: k6-operator is not running; the TestRun never gets a stage.
	down bool
	// unschedulable: the runner pods stay Pending, refused by the scheduler.
	unschedulable bool
	// losePods: the runner pods vanish once started (a node lost), and the TestRun stays
	// in the started stage, as k6-operator leaves it.
	losePods bool
	// starterUnschedulable: the runners run, but the starter pod k6-operator then creates
	// stays Pending, refused by the scheduler for want of CPU; k6-operator has moved the
	// TestRun to the started stage, and the runners wait for a start signal that never comes.
	starterUnschedulable bool
	// oomKillAfter, when set, OOM-kills the first runner's k6 this long after the load
	// starts; the TestRun stays in the started stage, as k6-operator leaves it while its
	// other runners could still run (hold keeps them going).
	oomKillAfter time.Duration
	// target, when set, scripts only the TestRuns of that target's trials (plan.NullResponder:
	// the generator floor's); the others run the real k6.
	target string
}

// world plays the other controllers for every namespace of one API server.
type world struct {
	c          client.Client
	k6Bin      string
	mu         sync.Mutex
	scripted   map[string]*k6Outcome      // by run label: scripted TestRuns instead of real k6
	dbNever    map[string]bool            // clusters (by name) that never become healthy
	depNever   map[string]bool            // Deployments (namespace/name) whose pod never becomes available
	depNoNode  map[string]bool            // Deployments (namespace/name) whose pod no node can take
	depPods    map[string]podPlace        // Deployments (namespace/name) whose running pod the kubelet makes first
	runnerNode string                     // the node runner pods are placed on ("": not placed)
	summaries  map[string]k6.Result       // k6's exact summary per TestRun
	trs        map[string]*k6Runner       // TestRuns with runners going
	seen       map[string]map[string]bool // namespace → TestRun name/UID pairs seen
	dbPassword string
	promURL    string            // where the kubelet's cAdvisor samples go
	targetPID  int               // the process whose CPU and memory they report
	runnerPIDs map[runnerPod]int // the real k6 of each runner pod while it runs
}

// runnerPod names a k6 runner pod, for its cAdvisor series.
type runnerPod struct{ namespace, name string }

// podPlace is the node and address a Deployment's one pod runs at.
type podPlace struct{ node, ip string }

type k6Runner struct {
	started time.Time
	exit    chan int32
	killed  bool // a runner was OOM-killed (oomKillAfter)
}

func newWorld(c client.Client, k6Bin string) *world {
	return &world{c: c, k6Bin: k6Bin, scripted: map[string]*k6Outcome{}, dbNever: map[string]bool{}, depNever: map[string]bool{}, depNoNode: map[string]bool{}, depPods: map[string]podPlace{},
		summaries: map[string]k6.Result{}, trs: map[string]*k6Runner{}, seen: map[string]map[string]bool{}, dbPassword: "s3cretPassw0rdFromCNPG",
		runnerPIDs: map[runnerPod]int{}}
}

func (w *world) script(run string, o *k6Outcome) { w.mu.Lock(); w.scripted[run] = o; w.mu.Unlock() }

// loop advances every object a step every 100 ms until ctx ends; the kubelet's cAdvisor
// samples every second.
func (w *world) loop(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			w.cadvisor(ctx)
			time.Sleep(time.Second)
		}
	}()
	for ctx.Err() == nil {
		w.cnpg(ctx)
		w.kubelet(ctx)
		w.k6Operator(ctx)
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *world) cnpg(ctx context.Context) {
	var clusters cnpgv1.ClusterList
	_ = w.c.List(ctx, &clusters)
	for i := range clusters.Items {
		cl := &clusters.Items[i]
		w.mu.Lock()
		never := w.dbNever[cl.Name]
		w.mu.Unlock()
		if cl.Status.Phase == cnpgv1.PhaseHealthy || cl.DeletionTimestamp != nil {
			continue
		}
		if never || cl.Status.Phase == "" {
			cl.Status.Phase, cl.Status.PhaseReason = "Setting up primary", "Creating primary instance "+cl.Name+"-1"
			cl.Status.Instances = cl.Spec.Instances
			_ = w.c.Status().Update(ctx, cl)
			continue
		}
		// initdb done: the app Secret exists, the instances are ready.
		_ = w.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: cl.Name + "-app", Namespace: cl.Namespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: cl.Name, UID: cl.UID}}},
			StringData: map[string]string{"username": "app", "password": w.dbPassword}})
		cl.Status.Phase, cl.Status.PhaseReason, cl.Status.ReadyInstances = cnpgv1.PhaseHealthy, "", cl.Spec.Instances
		cl.Status.Conditions = []metav1.Condition{{Type: string(cnpgv1.ConditionClusterReady), Status: metav1.ConditionTrue,
			Reason: "ClusterIsReady", Message: "Cluster is Ready", LastTransitionTime: metav1.Now()}}
		_ = w.c.Status().Update(ctx, cl)
	}
	var poolers cnpgv1.PoolerList
	_ = w.c.List(ctx, &poolers)
	for _, p := range poolers.Items {
		labels := map[string]string{"cnpg.io/poolerName": p.Name}
		_ = w.c.Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Pooler", Name: p.Name, UID: p.UID}}},
			Spec: appsv1.DeploymentSpec{Replicas: p.Spec.Instances, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pgbouncer", Image: "ghcr.io/cloudnative-pg/pgbouncer:1.24"}}}}}})
		if p.Status.Phase != cnpgv1.PoolerPhaseActive {
			p.Status.Phase, p.Status.Instances = cnpgv1.PoolerPhaseActive, ptr.Deref(p.Spec.Instances, 1)
			_ = w.c.Status().Update(ctx, &p)
		}
	}
}

// kubelet makes every Deployment's pods available, as the Deployment controller reports it.
func (w *world) kubelet(ctx context.Context) {
	var deps appsv1.DeploymentList
	_ = w.c.List(ctx, &deps)
	for i := range deps.Items {
		d := &deps.Items[i]
		n := ptr.Deref(d.Spec.Replicas, 1)
		if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == n {
			continue
		}
		w.mu.Lock()
		never, noNode := w.depNever[d.Namespace+"/"+d.Name], w.depNoNode[d.Namespace+"/"+d.Name]
		place, placed := w.depPods[d.Namespace+"/"+d.Name]
		w.mu.Unlock()
		if placed && !w.runningPod(ctx, d, place) {
			continue // available only once its pod runs, as a real kubelet reports it
		}
		if noNode {
			w.unschedulablePod(ctx, d)
		}
		if never || noNode {
			// The pod exists but never passes its readiness probe (CrashLoopBackOff).
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, UnavailableReplicas: n}
			_ = w.c.Status().Update(ctx, d)
			continue
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n,
			ReadyReplicas: n, AvailableReplicas: n}
		_ = w.c.Status().Update(ctx, d)
	}
}

// cadvisor reports each available target pod's container CPU and working set, as the
// kubelet's cAdvisor does, from the real process that answers for the target here: its
// CPU time and resident memory in /proc (every target in this suite is the local go-nethttp).
func (w *world) cadvisor(ctx context.Context) {
	now := time.Now()
	var samples []testprom.Series
	// Each runner pod's k6 container: the real k6 process's CPU, as its cgroup would count it.
	w.mu.Lock()
	for rp, pid := range w.runnerPIDs {
		if cpu, rss, err := procUsage(pid); err == nil {
			labels := func(name string) map[string]string {
				return map[string]string{"__name__": name, "namespace": rp.namespace, "pod": rp.name, "container": "k6"}
			}
			samples = append(samples,
				testprom.Series{Labels: labels("container_cpu_usage_seconds_total"), Samples: []testprom.Sample{{At: now, V: cpu}}},
				testprom.Series{Labels: labels("container_memory_working_set_bytes"), Samples: []testprom.Sample{{At: now, V: rss}}})
		}
	}
	w.mu.Unlock()
	var deps appsv1.DeploymentList
	cpuSeconds, rssBytes, err := procUsage(w.targetPID)
	if w.targetPID != 0 && err == nil {
		_ = w.c.List(ctx, &deps, client.MatchingLabels{specs.LabelName: specs.AppTarget})
	}
	for _, d := range deps.Items {
		if d.Status.AvailableReplicas == 0 {
			continue
		}
		labels := func(name string) map[string]string {
			return map[string]string{"__name__": name, "namespace": d.Namespace, "pod": d.Name + "-5d8f7c9b6d-q7x2z", "container": "target"}
		}
		samples = append(samples,
			testprom.Series{Labels: labels("container_cpu_usage_seconds_total"), Samples: []testprom.Sample{{At: now, V: cpuSeconds}}},
			testprom.Series{Labels: labels("container_memory_working_set_bytes"), Samples: []testprom.Sample{{At: now, V: rssBytes}}})
	}
	if len(samples) > 0 {
		_ = testprom.Push(w.promURL, samples)
	}
}

func (w *world) k6Operator(ctx context.Context) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(specs.TestRunGVK.GroupVersion().WithKind("TestRunList"))
	_ = w.c.List(ctx, list)
	for i := range list.Items {
		tr := &list.Items[i]
		st, _ := specs.ReadTestRunStatus(tr)
		key := tr.GetNamespace() + "/" + tr.GetName()
		w.mu.Lock()
		if w.seen[tr.GetNamespace()] == nil {
			w.seen[tr.GetNamespace()] = map[string]bool{}
		}
		w.seen[tr.GetNamespace()][tr.GetName()+"/"+string(tr.GetUID())] = true
		out := w.scripted[tr.GetLabels()[specs.LabelRun]]
		if out != nil && out.target != "" && out.target != tr.GetLabels()[specs.LabelTarget] {
			out = nil
		}
		rn := w.trs[key]
		w.mu.Unlock()
		if out != nil && out.down {
			continue
		}
		if out != nil && out.errorStage != "" && st.Stage == out.errorStage {
			w.setStage(ctx, tr, specs.StageError, &metav1.Condition{Type: "TestRunRunning", Status: metav1.ConditionFalse,
				Reason: "InitializerFailed", Message: "the initializer pod failed: k6 inspect: script error"})
			continue
		}
		switch st.Stage {
		case "":
			w.setStage(ctx, tr, specs.StageInitialization, nil)
		case specs.StageInitialization:
			w.setStage(ctx, tr, specs.StageInitialized, nil)
		case specs.StageInitialized:
			w.createRunners(ctx, tr, out != nil && out.unschedulable)
			w.setStage(ctx, tr, specs.StageCreated, nil)
		case specs.StageCreated:
			if out != nil && out.unschedulable {
				continue // the runners never start
			}
			if out != nil && out.starterUnschedulable {
				// k6-operator creates the starter Job once every runner runs, and calls the
				// TestRun started; the scheduler finds no room for the starter.
				w.unschedulableStarter(ctx, tr)
				w.setStage(ctx, tr, specs.StageStarted, &metav1.Condition{Type: "TestRunRunning", Status: metav1.ConditionTrue,
					Reason: "TestRunRunning"})
				continue
			}
			if rn == nil {
				rn = w.startRunners(tr, out)
				w.mu.Lock()
				w.trs[key] = rn
				w.mu.Unlock()
			}
			if !rn.started.IsZero() {
				w.setStage(ctx, tr, specs.StageStarted, &metav1.Condition{Type: "TestRunRunning", Status: metav1.ConditionTrue,
					Reason: "TestRunRunning", LastTransitionTime: metav1.NewTime(rn.started)})
			}
		case specs.StageStarted:
			if rn == nil {
				continue
			}
			if out != nil && out.losePods {
				_ = w.c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(tr.GetNamespace()), client.MatchingLabels{"k6_cr": tr.GetName()})
				continue
			}
			if out != nil && out.oomKillAfter > 0 && !rn.killed && time.Since(rn.started) > out.oomKillAfter {
				w.oomKillRunner(ctx, tr)
				rn.killed = true
			}
			select {
			case code := <-rn.exit:
				w.terminateRunners(ctx, tr, code)
				w.setStage(ctx, tr, specs.StageStopped, nil)
			default:
			}
		case specs.StageStopped:
			w.setStage(ctx, tr, specs.StageFinished, nil)
		}
	}
}

func (w *world) setStage(ctx context.Context, tr *unstructured.Unstructured, stage string, cond *metav1.Condition) {
	st, _ := specs.ReadTestRunStatus(tr)
	st.Stage = stage
	if cond != nil {
		if cond.LastTransitionTime.IsZero() {
			cond.LastTransitionTime = metav1.Now()
		}
		st.Conditions = []metav1.Condition{*cond}
	}
	raw, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	tr.Object["status"] = raw
	_ = w.c.Status().Update(ctx, tr)
}

func runnerPodName(tr *unstructured.Unstructured, i int) string {
	return fmt.Sprintf("%s-%d-x7k2p", tr.GetName(), i)
}

// unschedulablePod gives the Deployment one pod the scheduler cannot place, as it reports it
// for a pool whose selector matches no node.
// runningPod makes d's one pod, running on place's node with its address; false if the
// API did not take it (tried again next round).
func (w *world) runningPod(ctx context.Context, d *appsv1.Deployment, place podPlace) bool {
	// The Deployment controller's ReplicaSet, and its pod, each controlled by its owner.
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-5d8f7c9b6d", Namespace: d.Namespace, Labels: d.Spec.Selector.MatchLabels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template}}
	if err := w.c.Get(ctx, client.ObjectKeyFromObject(rs), rs); apierrors.IsNotFound(err) {
		if w.c.Create(ctx, rs) != nil {
			return false
		}
	} else if err != nil {
		return false
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-5d8f7c9b6d-q7x2z", Namespace: d.Namespace, Labels: d.Spec.Selector.MatchLabels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Spec: corev1.PodSpec{NodeName: place.node, Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c:1"}}}}
	if err := w.c.Get(ctx, client.ObjectKeyFromObject(p), p); apierrors.IsNotFound(err) {
		err = w.c.Create(ctx, p)
		if err != nil {
			return false
		}
	} else if err != nil {
		return false
	}
	if p.Status.PodIP == place.ip {
		return true
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: place.ip}
	return w.c.Status().Update(ctx, p) == nil
}

func (w *world) unschedulablePod(ctx context.Context, d *appsv1.Deployment) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-7c9d8b6f5-x2q4z", Namespace: d.Namespace, Labels: d.Spec.Template.Labels},
		Spec: d.Spec.Template.Spec}
	if err := w.c.Create(ctx, p); err != nil {
		return // there already
	}
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", LastTransitionTime: metav1.Now()}}
	_ = w.c.Status().Update(ctx, p)
}

// createRunners creates the runner pods; unschedulable ones get the scheduler's verdict.
func (w *world) createRunners(ctx context.Context, tr *unstructured.Unstructured, unschedulable bool) {
	n, _, _ := unstructured.NestedInt64(tr.Object, "spec", "parallelism")
	var resources corev1.ResourceRequirements
	if raw, ok, _ := unstructured.NestedMap(tr.Object, "spec", "runner", "resources"); ok {
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &resources)
	}
	w.mu.Lock()
	node := w.runnerNode
	w.mu.Unlock()
	for i := 1; i <= int(max(n, 1)); i++ {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: runnerPodName(tr, i), Namespace: tr.GetNamespace(),
				Labels:          map[string]string{"app": "k6", "k6_cr": tr.GetName(), "runner": "true"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "k6.io/v1alpha1", Kind: "TestRun", Name: tr.GetName(), UID: tr.GetUID()}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "k6", Image: "grafana/k6:1.8.1", Resources: resources}}}}
		if err := w.c.Create(ctx, p); err != nil || !unschedulable {
			continue
		}
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", LastTransitionTime: metav1.Now()}}
		_ = w.c.Status().Update(ctx, p)
	}
}

// unschedulableStarter creates the TestRun's starter pod, as the Job controller names and
// labels it, with the scheduler's verdict on a node whose CPU is all requested.
func (w *world) unschedulableStarter(ctx context.Context, tr *unstructured.Unstructured) {
	job := tr.GetName() + "-starter"
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: job + "-q8m4t", Namespace: tr.GetNamespace(),
			Labels: map[string]string{"app": "k6", "k6_cr": tr.GetName(), "batch.kubernetes.io/job-name": job, "job-name": job}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "k6-curl", Image: "gauntlet.local/k6-starter:lab"}}}}
	if err := w.c.Create(ctx, p); err != nil {
		return // there already
	}
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message:            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		LastTransitionTime: metav1.Now()}}
	_ = w.c.Status().Update(ctx, p)
}

// oomKillRunner ends the TestRun's first runner pod as the kubelet reports a container the
// kernel killed at its memory limit (exit code 137, reason OOMKilled; restartPolicy Never).
func (w *world) oomKillRunner(ctx context.Context, tr *unstructured.Unstructured) {
	p := &corev1.Pod{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: tr.GetNamespace(), Name: runnerPodName(tr, 1)}, p); err != nil {
		return
	}
	p.Status.Phase = corev1.PodFailed
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "k6", Image: "grafana/k6:1.8.1",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
	_ = w.c.Status().Update(ctx, p)
}

func (w *world) terminateRunners(ctx context.Context, tr *unstructured.Unstructured, code int32) {
	var pods corev1.PodList
	_ = w.c.List(ctx, &pods, client.InNamespace(tr.GetNamespace()), client.MatchingLabels{"k6_cr": tr.GetName(), "runner": "true"})
	for i := range pods.Items {
		p := &pods.Items[i]
		reason := "Completed"
		if code != 0 {
			reason = "Error"
		}
		p.Status.Phase = corev1.PodSucceeded
		if code != 0 {
			p.Status.Phase = corev1.PodFailed
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "k6", Image: "grafana/k6:1.8.1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
				StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
		_ = w.c.Status().Update(ctx, p)
	}
}

// startRunners runs the TestRun's one runner: the real k6 with the TestRun's arguments and
// environment and the ConfigMap's script and plan, or the scripted outcome.
func (w *world) startRunners(tr *unstructured.Unstructured, out *k6Outcome) *k6Runner {
	rn := &k6Runner{exit: make(chan int32, 1)}
	if out != nil {
		rn.started = time.Now()
		go func() {
			if out.hold != nil {
				<-out.hold
			}
			rn.exit <- out.exitCode
		}()
		return rn
	}
	started := make(chan time.Time, 1)
	go func() { rn.exit <- w.runK6(tr, started) }()
	select {
	case rn.started = <-started:
	case <-time.After(30 * time.Second):
	}
	return rn
}

func (w *world) summary(testRun string) (k6.Result, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.summaries[testRun]
	return r, ok
}

// testRunsSeen lists the TestRuns seen in a namespace as name/UID: a trial run twice
// would show its name with two UIDs.
func (w *world) testRunsSeen(namespace string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for k := range w.seen[namespace] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
