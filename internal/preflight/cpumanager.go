package preflight

import (
	"context"
	"encoding/json"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// CPUManager reads each node's kubelet configuration through the API server's node
// proxy (configz): targets get whole cores to themselves only under the static policy.
// With runs, only the nodes their targets' pools select.
func CPUManager(ctx context.Context, cs kubernetes.Interface, runs []*benchv1.BenchmarkRun) []Result {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return []Result{{"cpu manager", Warn, "cannot list nodes: " + err.Error()}}
	}
	var selectors []labels.Selector
	for _, r := range runs {
		for _, t := range r.Spec.Targets {
			selectors = append(selectors, labels.SelectorFromSet(r.Spec.Pool(t.NodePool).NodeSelector))
		}
	}
	var out []Result
	for _, n := range nodes.Items {
		if len(runs) > 0 && !slices.ContainsFunc(selectors, func(s labels.Selector) bool { return s.Matches(labels.Set(n.Labels)) }) {
			continue
		}
		name := "cpu manager " + n.Name
		raw, err := cs.CoreV1().RESTClient().Get().Resource("nodes").Name(n.Name).SubResource("proxy").Suffix("configz").DoRaw(ctx)
		if err != nil {
			out = append(out, Result{name, Warn, "cannot read the kubelet's configz (nodes/proxy): " + err.Error()})
			continue
		}
		var cz struct {
			KubeletConfig struct {
				CPUManagerPolicy string `json:"cpuManagerPolicy"`
			} `json:"kubeletconfig"`
		}
		if err := json.Unmarshal(raw, &cz); err != nil {
			out = append(out, Result{name, Warn, "configz: " + err.Error()})
			continue
		}
		policy := cz.KubeletConfig.CPUManagerPolicy
		if policy == "" {
			policy = "none" // the kubelet's default
		}
		if policy == "static" {
			out = append(out, Result{name, OK, "static: whole-core targets get their cores to themselves"})
		} else {
			out = append(out, Result{name, Warn, "policy " + policy + ": targets share the node's cores and CFS throttling shows in the p99 (docs/cluster.md, section 3)"})
		}
	}
	if len(out) == 0 {
		out = append(out, Result{"cpu manager", Warn, "no node matches the runs' target pools"})
	}
	return out
}
