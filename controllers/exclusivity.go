package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// poolKeys identifies the node pools a run loads (its targets' and its load generator's)
// by their node selectors, so two runs naming the same nodes differently still exclude
// each other. A pool without a selector is any node: it claims nothing.
func poolKeys(run *benchv1.BenchmarkRun) map[string]string {
	used := map[string]bool{run.Spec.LoadGenerator.NodePool: true}
	for _, t := range run.Spec.Targets {
		used[t.NodePool] = true
	}
	keys := map[string]string{}
	for _, p := range run.Spec.NodePools {
		if !used[p.Name] || len(p.NodeSelector) == 0 {
			continue
		}
		var kv []string
		for k, v := range p.NodeSelector {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		keys[strings.Join(kv, ",")] = p.Name
	}
	return keys
}

// before orders runs first come, first served: creation time, then namespace and name.
func before(a, b *benchv1.BenchmarkRun) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
}

// +kubebuilder:rbac:groups="",resources=nodes,verbs=list

// poolSelectors is poolKeys with each key's node selector, to match it against the nodes.
func poolSelectors(run *benchv1.BenchmarkRun) map[string]labels.Selector {
	out := map[string]labels.Selector{}
	for key, name := range poolKeys(run) {
		for _, p := range run.Spec.NodePools {
			if p.Name == name {
				out[key] = labels.SelectorFromSet(p.NodeSelector)
			}
		}
	}
	return out
}

// sharedNode names a node both selectors match, or "" when none does.
func sharedNode(nodes []corev1.Node, a, b labels.Selector) string {
	for i := range nodes {
		l := labels.Set(nodes[i].Labels)
		if a.Matches(l) && b.Matches(l) {
			return nodes[i].Name
		}
	}
	return ""
}

// DefaultMaxRunDuration is the longest a run may take from its start (Timeouts.Run,
// --max-run-duration): the spec's bounds allow weeks of trials, and a run holds its node
// pools for all of it.
const DefaultMaxRunDuration = 24 * time.Hour

// runDeadline fails a run that went past the maximum run duration: its trials stop, and
// its node pools go to the next run.
func (r *BenchmarkRunReconciler) runDeadline(_ context.Context, s *scope) (ctrl.Result, error) {
	started := s.run.Status.StartedAt
	if started == nil || s.now.Sub(started.Time) <= r.Timeouts.Run {
		return ctrl.Result{}, nil
	}
	return r.fail(s, benchv1.ConditionComplete, benchv1.ReasonRunTimeout, fmt.Sprintf(
		"the run went past the operator's maximum run duration of %s (--max-run-duration) and was stopped; its node pools are free", r.Timeouts.Run))
}

// nodePools takes the run's node-pool lock before anything of the run is deployed (its
// database, targets and contract checks would load the pool too), and holds it until the
// run finishes: while an earlier run holds one of its pools, the run waits here.
func (r *BenchmarkRunReconciler) nodePools(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	holder, err := r.nodePoolHolder(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	if holder != "" {
		msg := "waiting for " + holder
		if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionNodePoolsAvailable); c == nil || c.Message != msg {
			r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonWaitingForPool, "WaitForNodePool", msg)
		}
		setCondition(run, benchv1.ConditionNodePoolsAvailable, metav1.ConditionFalse, benchv1.ReasonWaitingForPool, msg)
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	setCondition(run, benchv1.ConditionNodePoolsAvailable, metav1.ConditionTrue, benchv1.ReasonPoolFree, "no other run loads this run's node pools")
	return ctrl.Result{}, nil
}

// nodePoolHolder names the run this one must wait for before it loads a node pool: an
// unfinished run created earlier that uses one of the same pools, by selector or by a node
// both selectors match (two selectors can name the same nodes). The order is total and
// the same for every run, so two runs never both go ahead, and never wait for each other.
// In a namespaced install only the watched namespace's runs count. A run in another
// namespace belongs to another tenant: the message says one is there, in this run's own
// words (its pool and selector), and never its name.
func (r *BenchmarkRunReconciler) nodePoolHolder(ctx context.Context, run *benchv1.BenchmarkRun) (string, error) {
	mine := poolKeys(run)
	if len(mine) == 0 {
		return "", nil
	}
	var all benchv1.BenchmarkRunList
	var opts []client.ListOption
	if r.WatchNamespace != "" {
		opts = append(opts, client.InNamespace(r.WatchNamespace))
	}
	if err := r.List(ctx, &all, opts...); err != nil {
		return "", err
	}
	var nodes []corev1.Node // listed once, and only when an earlier run might share one
	listed := false
	mySel := poolSelectors(run)
runs:
	for i := range all.Items {
		o := &all.Items[i]
		if o.UID == run.UID || !o.DeletionTimestamp.IsZero() || !before(o, run) {
			continue
		}
		theirs := poolSelectors(o)
		if len(theirs) == 0 {
			continue
		}
		if !listed {
			var list corev1.NodeList
			err := r.APIReader.List(ctx, &list)
			switch {
			case apierrors.IsForbidden(err):
				// A namespaced install's Role cannot grant nodes (cluster-scoped): pools are
				// compared by selector alone, and two selectors written differently that
				// match the same nodes are not caught (docs/operations.md).
				log.FromContext(ctx).V(1).Info("nodes cannot be listed: node pools compared by selector only", "error", err.Error())
			case err != nil:
				return "", fmt.Errorf("listing nodes to match node pools: %w", err)
			}
			nodes, listed = list.Items, true
		}
		for key, sel := range mySel {
			for theirKey, theirSel := range theirs {
				via := ""
				if key != theirKey {
					node := sharedNode(nodes, sel, theirSel)
					if node == "" {
						continue
					}
					via = ", on node " + node
				}
				if finished(o) {
					// A finished run keeps the pool until the pods of the Deployments it
					// keeps (scaled to zero by its cleanup) are gone.
					busy, err := r.leftoverPods(ctx, o)
					if err != nil {
						return "", err
					}
					if !busy {
						continue runs
					}
					via += "; it finished, and its target pods are still going"
				}
				if o.Namespace != run.Namespace {
					return fmt.Sprintf("a BenchmarkRun in another namespace, created first, which loads the nodes of node pool %s (%s%s) until it finishes",
						mine[key], key, via), nil
				}
				return fmt.Sprintf("BenchmarkRun %s/%s, which uses node pool %s (%s%s); it was created first and loads it until it finishes",
					o.Namespace, o.Name, poolKeys(o)[theirKey], theirKey, via), nil
			}
		}
	}
	return "", nil
}

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=patch

// runDeployments is the Deployments the run created (from the cache, which holds the
// operator's own).
func (r *BenchmarkRunReconciler) runDeployments(ctx context.Context, run *benchv1.BenchmarkRun) ([]appsv1.Deployment, error) {
	var deps appsv1.DeploymentList
	if err := r.List(ctx, &deps, client.InNamespace(run.Namespace), client.MatchingLabels{specs.LabelRun: specs.LabelValue(run.Name)}); err != nil {
		return nil, err
	}
	var out []appsv1.Deployment
	for _, d := range deps.Items {
		if ownedBy(&d, run) {
			out = append(out, d)
		}
	}
	return out, nil
}

// leftoverPods says whether a finished run still has target pods: its Deployments, kept
// by its cleanup policy, are scaled to zero (scaleDownLeftovers), and their pods take a
// moment to go.
func (r *BenchmarkRunReconciler) leftoverPods(ctx context.Context, run *benchv1.BenchmarkRun) (bool, error) {
	deps, err := r.runDeployments(ctx, run)
	if err != nil {
		return false, fmt.Errorf("listing the Deployments of finished run %s: %w", run.Name, err)
	}
	for _, d := range deps {
		if d.DeletionTimestamp.IsZero() && (ptr.Deref(d.Spec.Replicas, 1) > 0 || d.Status.Replicas > 0) {
			return true, nil
		}
	}
	return false, nil
}

// scaleDownLeftovers scales to zero the Deployments a finished run keeps (cleanup policy
// Never, or OnSuccess after a failure) when it uses a node pool: their Guaranteed-CPU
// pods would otherwise sit on the pool beside the next run's measurement, indefinitely.
// The objects stay for inspection; kubectl scale brings a target back (outside any lock).
func (r *BenchmarkRunReconciler) scaleDownLeftovers(ctx context.Context, run *benchv1.BenchmarkRun) (int, error) {
	if len(poolKeys(run)) == 0 {
		return 0, nil // on any node: the lock never covered it
	}
	deps, err := r.runDeployments(ctx, run)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range deps {
		d := &deps[i]
		if !d.DeletionTimestamp.IsZero() || ptr.Deref(d.Spec.Replicas, 1) == 0 {
			continue
		}
		patch := client.MergeFrom(d.DeepCopy())
		d.Spec.Replicas = ptr.To(int32(0))
		if err := r.Patch(ctx, d, patch); err != nil && !apierrors.IsNotFound(err) {
			return n, fmt.Errorf("scaling Deployment %s to zero: %w", d.Name, err)
		}
		n++
	}
	return n, nil
}
