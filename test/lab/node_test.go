//go:build lab

package lab

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testNode: the node is Ready and carries the labels of both pools the samples place on
// (targets: kubernetes.io/arch=amd64; load generators: gauntlet.dev/pool=loadgen).
func (l *lab) testNode(t *testing.T) {
	nodes, err := l.client.CoreV1().Nodes().List(ctx(t, time.Minute), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 1 {
		t.Fatalf("want one node, got %d", len(nodes.Items))
	}
	n := nodes.Items[0]
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
	}
	for k, v := range map[string]string{"kubernetes.io/arch": "amd64", "gauntlet.dev/pool": "loadgen"} {
		if n.Labels[k] != v {
			t.Errorf("node label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	if n.Status.NodeInfo.KubeletVersion != kubeVersion {
		t.Errorf("kubelet version %q, want %s", n.Status.NodeInfo.KubeletVersion, kubeVersion)
	}
}
