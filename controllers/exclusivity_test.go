package controllers

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestPoolKeys(t *testing.T) {
	arm := benchv1.NodePool{Name: "arm", NodeSelector: map[string]string{"kubernetes.io/arch": "arm64", "pool": "c7g"}}
	amd := benchv1.NodePool{Name: "amd", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}}
	any := benchv1.NodePool{Name: "any"}
	cases := []struct {
		name string
		spec benchv1.BenchmarkRunSpec
		want map[string]string
	}{
		{"no pools", benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "a"}}}, map[string]string{}},
		{"targets and load generator", benchv1.BenchmarkRunSpec{NodePools: []benchv1.NodePool{arm, amd, any},
			Targets: []benchv1.Target{{Name: "a", NodePool: "arm"}, {Name: "b", NodePool: "any"}}, LoadGenerator: benchv1.LoadGenerator{NodePool: "amd"}},
			map[string]string{"kubernetes.io/arch=arm64,pool=c7g": "arm", "kubernetes.io/arch=amd64": "amd"}},
		{"a declared pool nobody uses claims nothing", benchv1.BenchmarkRunSpec{NodePools: []benchv1.NodePool{arm},
			Targets: []benchv1.Target{{Name: "a"}}}, map[string]string{}},
	}
	for _, c := range cases {
		if got := poolKeys(&benchv1.BenchmarkRun{Spec: c.spec}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRunOrderIsTotal(t *testing.T) {
	at := metav1.NewTime(time.Unix(1000, 0))
	mk := func(ns, name string, ts metav1.Time) *benchv1.BenchmarkRun {
		return &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: ts}}
	}
	early, a, b := mk("x", "z", metav1.NewTime(at.Add(-time.Second))), mk("x", "a", at), mk("x", "b", at)
	for _, c := range []struct {
		x, y *benchv1.BenchmarkRun
		want bool
	}{{early, a, true}, {a, early, false}, {a, b, true}, {b, a, false}, {a, a, false}} {
		if got := before(c.x, c.y); got != c.want {
			t.Errorf("before(%s, %s) = %v", c.x.Name, c.y.Name, got)
		}
	}
}

func TestSetPhaseNeverGoesBack(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	for _, p := range []benchv1.Phase{benchv1.PhasePending, benchv1.PhaseRunning, benchv1.PhaseProvisioning, benchv1.PhaseVerifying} {
		setPhase(run, p)
	}
	if run.Status.Phase != benchv1.PhaseRunning {
		t.Errorf("phase %s, want Running", run.Status.Phase)
	}
}
