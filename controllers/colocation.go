package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// sharedNodes puts into m the nodes where the trial's runners ran beside its target and
// returns the message that names them. A target whose pods cannot be listed any more is
// left unjudged: the figures already measured stand.
func (r *BenchmarkRunReconciler) sharedNodes(ctx context.Context, run *benchv1.BenchmarkRun, t *benchv1.Trial, runners []corev1.Pod, m *benchv1.Measurement) string {
	targets, _, err := r.targetPods(ctx, run, t)
	if err != nil {
		return ""
	}
	nodes, msg := besideTarget(t.TestRun, runners, targets)
	m.SharedNodes = nodes
	if msg != "" {
		r.Recorder.Eventf(run, nil, "Warning", benchv1.ReasonGeneratorBesideTarget, "Measure", "trial %s: %s", t.Name, msg)
	}
	return msg
}

// besideTarget is the nodes on which one of the trial's runners ran beside one of its
// target's pods, and a message naming them: there they shared the node's CPUs, and the
// target's latency includes its waits behind the generator. The local mode keeps k6 and
// the targets on disjoint CPUs (status.placement), so such a trial measured something the
// same document does not mean there. Both are empty when every runner ran elsewhere.
func besideTarget(testRun string, runners, targets []corev1.Pod) (nodes []string, msg string) {
	targetOn := map[string]string{}
	for _, p := range targets {
		if p.Spec.NodeName != "" {
			targetOn[p.Spec.NodeName] = p.Name
		}
	}
	byNode := map[string][]string{}
	for i := range runners {
		p := &runners[i]
		if k6PodRole(testRun, p) != roleRunner {
			continue
		}
		if _, ok := targetOn[p.Spec.NodeName]; ok {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Name)
		}
	}
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	parts := make([]string, 0, len(nodes))
	for _, n := range nodes {
		sort.Strings(byNode[n])
		who := "runner " + byNode[n][0]
		if len(byNode[n]) > 1 {
			who = "runners " + strings.Join(byNode[n], ", ")
		}
		parts = append(parts, fmt.Sprintf("%s ran on node %s beside target pod %s", who, n, targetOn[n]))
	}
	if len(parts) == 0 {
		return nil, ""
	}
	shared := ": they shared its CPUs"
	if len(nodes) > 1 {
		shared = ": they shared those nodes' CPUs"
	}
	return nodes, strings.Join(parts, "; ") + shared
}
