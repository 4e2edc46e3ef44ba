package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
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

// nodePoolHolder names the run this one must wait for before it loads a node pool: an
// unfinished run created earlier that uses one of the same pools. The order is total and
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
	for i := range all.Items {
		o := &all.Items[i]
		if o.UID == run.UID || finished(o) || !o.DeletionTimestamp.IsZero() || !before(o, run) {
			continue
		}
		for key, name := range poolKeys(o) {
			if _, shared := mine[key]; !shared {
				continue
			}
			if o.Namespace != run.Namespace {
				return fmt.Sprintf("a BenchmarkRun in another namespace, created first, which loads the nodes of node pool %s (%s) until it finishes",
					mine[key], key), nil
			}
			return fmt.Sprintf("BenchmarkRun %s/%s, which uses node pool %s (%s); it was created first and loads it until it finishes",
				o.Namespace, o.Name, name, key), nil
		}
	}
	return "", nil
}
