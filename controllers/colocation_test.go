package controllers

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBesideTarget(t *testing.T) {
	on := func(p corev1.Pod, node string) corev1.Pod { p.Spec.NodeName = node; return p }
	target := func(name, node string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	}
	cases := []struct {
		name      string
		runners   []corev1.Pod
		targets   []corev1.Pod
		wantNodes []string
		wantMsg   string
	}{
		{"apart", []corev1.Pod{on(k6RunnerPod("1"), "load-a"), on(k6RunnerPod("2"), "load-b")},
			[]corev1.Pod{target("go-7d9-abcde", "app-a")}, nil, ""},
		{"one runner beside", []corev1.Pod{on(k6RunnerPod("1"), "app-a"), on(k6RunnerPod("2"), "load-b")},
			[]corev1.Pod{target("go-7d9-abcde", "app-a")}, []string{"app-a"},
			"runner " + podsTestRun + "-1-x7k2p ran on node app-a beside target pod go-7d9-abcde: they shared its CPUs"},
		{"two runners on two target nodes", []corev1.Pod{on(k6RunnerPod("2"), "app-b"), on(k6RunnerPod("1"), "app-a"), on(k6RunnerPod("3"), "app-a")},
			[]corev1.Pod{target("go-7d9-abcde", "app-a"), target("go-7d9-fghij", "app-b")}, []string{"app-a", "app-b"},
			"runners " + podsTestRun + "-1-x7k2p, " + podsTestRun + "-3-x7k2p ran on node app-a beside target pod go-7d9-abcde; " +
				"runner " + podsTestRun + "-2-x7k2p ran on node app-b beside target pod go-7d9-fghij: they shared those nodes' CPUs"},
		// The initializer and starter run briefly before the load: only runners count.
		{"starter beside", []corev1.Pod{on(jobPod(roleStarter, true), "app-a"), on(k6RunnerPod("1"), "load-a")},
			[]corev1.Pod{target("go-7d9-abcde", "app-a")}, nil, ""},
		{"runner not yet placed", []corev1.Pod{k6RunnerPod("1")}, []corev1.Pod{target("go-7d9-abcde", "app-a")}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes, msg := besideTarget(podsTestRun, c.runners, c.targets)
			if !reflect.DeepEqual(nodes, c.wantNodes) || msg != c.wantMsg {
				t.Errorf("besideTarget = %q, %q; want %q, %q", nodes, msg, c.wantNodes, c.wantMsg)
			}
		})
	}
}
