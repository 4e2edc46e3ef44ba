package controllers

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// ConditionWireCapture says whether the trials' wire captures were complete, so that their
// rows' latency of record is the wire's; False names the first trial that fell back to
// k6's figures and why.
const ConditionWireCapture = "WireCapture"

// Reasons of ConditionWireCapture.
const (
	ReasonWireComplete   = "Complete"
	ReasonWireMissing    = "CaptureMissing"
	ReasonWireIncomplete = "CaptureIncomplete"
)

// WireAgents points the operator at the wire agents (the chart's DaemonSet, on the host
// network of every node): pods in Namespace matching Selector, answering HTTPS on Port
// with the serving pair of the Secret the operator keeps (EnsureWireTLS).
type WireAgents struct {
	Namespace string
	Selector  labels.Selector
	Port      int
	Client    *wireagent.Client
}

// targetPods is a trial's target pods (running, with an address) and its port.
func (r *BenchmarkRunReconciler) targetPods(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) ([]corev1.Pod, int, error) {
	port := int(specs.PresetPort)
	if !t.Calibration {
		port = int(specs.TargetPort(targetSpec(run, t.Target)))
	}
	dep := &appsv1.Deployment{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: deploymentOf(run, t)}, dep); err != nil {
		return nil, port, err
	}
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels(dep.Spec.Selector.MatchLabels)); err != nil {
		return nil, port, err
	}
	owned, err := r.ownedPods(ctx, dep, pods.Items)
	if err != nil {
		return nil, port, err
	}
	var out []corev1.Pod
	for _, p := range owned {
		if p.DeletionTimestamp.IsZero() && p.Status.PodIP != "" && p.Spec.NodeName != "" {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, port, fmt.Errorf("Deployment %s has no running pod with an address", dep.Name)
	}
	// Each capture takes one of a node's few slots (wireagent.MaxRunning), shared by every
	// tenant: a trial never takes more than its Deployment's replicas.
	if want := int(ptr.Deref(dep.Spec.Replicas, 1)); len(out) > want {
		out = out[:max(want, 1)]
	}
	return out, port, nil
}

// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=get

// ownedPods keeps the pods a ReplicaSet of dep controls. A label is anyone's to set: a
// tenant's extra pods carrying the target's labels would otherwise get captures (and the
// node's capture slots). Each ReplicaSet is read once, uncached (the manager watches no
// ReplicaSets).
func (r *BenchmarkRunReconciler) ownedPods(ctx context.Context, dep *appsv1.Deployment, pods []corev1.Pod) ([]corev1.Pod, error) {
	ours := map[types.UID]bool{}
	var out []corev1.Pod
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p)
		if ref == nil || ref.Kind != "ReplicaSet" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
			continue
		}
		ok, seen := ours[ref.UID]
		if !seen {
			rs := &appsv1.ReplicaSet{}
			err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: dep.Namespace, Name: ref.Name}, rs)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("reading ReplicaSet %s of pod %s: %w", ref.Name, p.Name, err)
			}
			owner := metav1.GetControllerOf(rs)
			ok = err == nil && rs.UID == ref.UID && owner != nil && owner.UID == dep.UID
			ours[ref.UID] = ok
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// agentOn is the base URL of the wire agent on node, "" when none runs there.
func (r *BenchmarkRunReconciler) agentOn(ctx context.Context, node string) (string, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(r.Wire.Namespace), client.MatchingLabelsSelector{Selector: r.Wire.Selector}); err != nil {
		return "", err
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == node && p.Status.PodIP != "" && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			return "https://" + net.JoinHostPort(p.Status.PodIP, strconv.Itoa(r.Wire.Port)), nil
		}
	}
	return "", nil
}

// captureID names a trial's capture of one pod: unique per TestRun, so a restarted
// operator finds its captures again, and under the prefixes of its trial and its run
// (capturePrefix), so they can be stopped together when the trial fails or the run goes.
func captureID(run *benchv1.BenchmarkRun, t *benchv1.Trial, pod string) string {
	return capturePrefix(run, t) + pod
}

// capturePrefix is the prefix of a trial's captures, or of all the run's with a nil trial.
func capturePrefix(run *benchv1.BenchmarkRun, t *benchv1.Trial) string {
	if t == nil {
		return string(run.UID) + "/"
	}
	return string(run.UID) + "/" + t.TestRun + "/"
}

// stopWire stops every capture under the prefix of a trial (or of the whole run, t nil)
// on every agent: a failed trial or a deleted run is never read, and its captures would
// otherwise hold their slots until they stop themselves, up to wireagent.MaxSeconds.
// Best effort: an agent that does not answer is logged, and its captures still end then.
func (r *BenchmarkRunReconciler) stopWire(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) {
	if r.Wire == nil || (t != nil && t.TestRun == "") {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(r.Wire.Namespace), client.MatchingLabelsSelector{Selector: r.Wire.Selector}); err != nil {
		log.FromContext(ctx).Info("wire captures not stopped: listing the agents", "error", err.Error())
		return
	}
	for _, p := range pods.Items {
		if p.Status.PodIP == "" || p.Status.Phase != corev1.PodRunning || !p.DeletionTimestamp.IsZero() {
			continue
		}
		base := "https://" + net.JoinHostPort(p.Status.PodIP, strconv.Itoa(r.Wire.Port))
		if _, err := r.Wire.Client.StopPrefix(ctx, base, capturePrefix(run, t)); err != nil {
			log.FromContext(ctx).Info("wire captures not stopped", "agent", p.Name, "error", err.Error())
		}
	}
}

// finishedWire remembers the runs whose captures were stopped after they finished, so a
// finished run's later passes (and the others' resyncs) call the agents once per process.
var finishedWire = struct {
	sync.Mutex
	at map[types.UID]time.Time
}{at: map[types.UID]time.Time{}}

// stopRunWire stops the captures of a run that finished or is being deleted, once: a run
// that failed outside a trial's own path (its deadline, a stage's failure) or was deleted
// mid-trial leaves that trial's captures behind. Past wireagent.MaxSeconds after it
// finished they have stopped themselves.
func (r *BenchmarkRunReconciler) stopRunWire(ctx context.Context, run *benchv1.BenchmarkRun, now time.Time) {
	if r.Wire == nil || run.Status.FinishedAt != nil && now.Sub(run.Status.FinishedAt.Time) > wireagent.MaxSeconds*time.Second {
		return
	}
	finishedWire.Lock()
	_, done := finishedWire.at[run.UID]
	if !done {
		finishedWire.at[run.UID] = now
	}
	for uid, at := range finishedWire.at {
		if now.Sub(at) > wireagent.MaxSeconds*time.Second {
			delete(finishedWire.at, uid)
		}
	}
	finishedWire.Unlock()
	if !done {
		r.stopWire(ctx, run, nil)
	}
}

// startWire asks the agent on each target pod's node to capture the pod while the trial's
// TestRun runs; the capture outlives the longest the trial may take, then stops itself.
// A capture that cannot start is reported when the trial is read (readWire), where the
// row falls back to k6's figures.
func (r *BenchmarkRunReconciler) startWire(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) {
	if r.Wire == nil {
		return
	}
	pods, port, err := r.targetPods(ctx, run, t)
	warmup, measure := plan.Windows(&run.Spec, plan.FromStatus(t))
	life := warmup + measure + r.Timeouts.TrialStart + r.Timeouts.TrialFinish + time.Minute
	seconds := min(int(life/time.Second), wireagent.MaxSeconds)
	for _, p := range pods {
		base, aerr := r.agentOn(ctx, p.Spec.NodeName)
		if aerr == nil && base != "" {
			aerr = r.Wire.Client.Start(ctx, base, wireagent.StartRequest{ID: captureID(run, t, p.Name), PodIP: p.Status.PodIP, Port: port, Seconds: seconds,
				Tenant: run.Namespace})
		}
		if aerr != nil {
			err = aerr
		}
	}
	if err != nil {
		r.Recorder.Eventf(run, nil, "Warning", ReasonWireMissing, "Capture", "trial %s: wire capture not started: %v", t.Name, err)
	}
}

// readWire stops the trial's captures and merges their figures (one per target pod), and
// what the hypervisor took from their nodes' CPUs (each node once) as the agents read it.
// why says what was missing when there are no figures.
func (r *BenchmarkRunReconciler) readWire(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial) (*benchv1.WireLatency, hoststeal.Taken, string) {
	var steal hoststeal.Taken
	pods, _, err := r.targetPods(ctx, run, t)
	if err != nil {
		return nil, steal, err.Error()
	}
	reqs, err := plan.Requests(&run.Spec, t.Scenario)
	if err != nil {
		return nil, steal, err.Error()
	}
	expected := workload.ExpectedStatuses(reqs)
	var (
		h     wire.Histogram
		out   benchv1.WireLatency
		nodes = map[string]bool{}
	)
	for _, p := range pods {
		base, err := r.agentOn(ctx, p.Spec.NodeName)
		if err != nil {
			return nil, steal, err.Error()
		}
		if base == "" {
			return nil, steal, fmt.Sprintf("no wire agent runs on node %s (pod %s)", p.Spec.NodeName, p.Name)
		}
		f, err := r.Wire.Client.Stop(ctx, base, captureID(run, t, p.Name))
		if err != nil {
			return nil, steal, err.Error()
		}
		if f.Error != "" {
			return nil, steal, fmt.Sprintf("the capture of pod %s on node %s broke off: %s", p.Name, p.Spec.NodeName, f.Error)
		}
		if f.CPUs > 0 && !nodes[p.Spec.NodeName] {
			nodes[p.Spec.NodeName] = true
			steal.Millicores += f.StealMillicores
			steal.CPUs += f.CPUs
		}
		out.Requests += f.Requests
		out.Unanswered += f.Unanswered
		out.ErrorResponses += wire.ErrorResponses(f.Statuses, expected)
		// Segments the capture did not follow make it as incomplete as dropped ones.
		out.DroppedPackets += f.DroppedPackets + f.Refused
		h.Merge(f.Buckets, f.MaxNanos)
	}
	out.P50Micros, out.P90Micros, out.P95Micros, out.P99Micros, out.P999Micros, out.MaxMicros = h.Summary()
	return &out, steal, ""
}

// recordWire puts a trial's wire figures into its measurement and says on the run's
// WireCapture condition whether they are complete; the first trial that fell back keeps
// the condition False with its reason.
func (r *BenchmarkRunReconciler) recordWire(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial, m *benchv1.Measurement) string {
	if r.Wire == nil {
		return ""
	}
	w, steal, why := r.readWire(ctx, run, t)
	m.Wire = w
	m.HostStealMillicores, m.HostCPUs = steal.Millicores, steal.CPUs
	status, reason, msg := metav1.ConditionTrue, ReasonWireComplete, fmt.Sprintf("trial %s: every one of %d measured requests captured on the wire", t.Name, m.Requests)
	switch {
	case w == nil:
		status, reason = metav1.ConditionFalse, ReasonWireMissing
		msg = fmt.Sprintf("trial %s: no wire capture (%s): k6's figures are the record", t.Name, why)
	case !results.WireComplete(*m):
		status, reason = metav1.ConditionFalse, ReasonWireIncomplete
		msg = fmt.Sprintf("trial %s: wire capture incomplete (%d of k6's %d measured requests, %d unanswered, %d packets dropped; every request k6 counted must be answered on the wire, nothing dropped): k6's figures are the record",
			t.Name, w.Requests, m.Requests, w.Unanswered, w.DroppedPackets)
	}
	if c := findCondition(run.Status.Conditions, ConditionWireCapture); status == metav1.ConditionFalse || c == nil || c.Status == metav1.ConditionTrue {
		setCondition(run, ConditionWireCapture, status, reason, msg)
	}
	if status == metav1.ConditionFalse {
		r.Recorder.Eventf(run, nil, "Warning", reason, "Capture", "%s", msg)
		return msg
	}
	return ""
}
