package specs

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// podPullSecrets are the imagePullSecrets of every pod spec the run's objects create, by
// the pod's role: the targets, the null responders (the pools' and the default one), the
// TestRun's runner, initializer and starter, and CloudNativePG's instances and PgBouncer.
func podPullSecrets(t *testing.T, run *benchv1.BenchmarkRun) map[string][]string {
	t.Helper()
	cfg := fixtureConfig()
	names := func(refs []corev1.LocalObjectReference) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Name)
		}
		return out
	}
	got := map[string][]string{}
	for _, target := range run.Spec.Targets {
		got["target "+target.Name] = names(TargetDeployment(run, target, cfg).Spec.Template.Spec.ImagePullSecrets)
	}
	for _, pool := range []string{"", "amd"} {
		got["null responder "+pool] = names(NullResponderDeployment(run, pool, cfg).Spec.Template.Spec.ImagePullSecrets)
	}
	tr := TestRun(run, fixtureTrial, fixturePlan(t), cfg)
	for _, pod := range []string{"runner", "initializer", "starter"} {
		list, _, err := unstructured.NestedSlice(tr.Object, "spec", pod, "imagePullSecrets")
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range list {
			got["k6 "+pod] = append(got["k6 "+pod], item.(map[string]any)["name"].(string))
		}
	}
	var cluster []string
	for _, r := range DatabaseCluster(run, cfg).Spec.ImagePullSecrets {
		cluster = append(cluster, r.Name)
	}
	got["database cluster"] = cluster
	if tpl := DatabasePooler(run).Spec.Template; tpl != nil {
		got["pooler"] = names(tpl.Spec.ImagePullSecrets)
	} else {
		got["pooler"] = nil
	}
	return got
}

// Every pod the run creates in its namespace pulls with the run's imagePullSecrets, in
// their order; a run without them changes no pod spec (no Pooler template either).
func TestEveryPodCarriesThePullSecrets(t *testing.T) {
	run := fixtureRun()
	run.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "ghcr-creds"}, {Name: "mirror.example"}}
	got := podPullSecrets(t, run)
	if len(got) != 9 {
		t.Fatalf("%d pods checked, want 9: %v", len(got), got)
	}
	want := []string{"ghcr-creds", "mirror.example"}
	for pod, secrets := range got {
		if !reflect.DeepEqual(secrets, want) {
			t.Errorf("%s: imagePullSecrets %v, want %v", pod, secrets, want)
		}
	}
	// The Pooler's template holds nothing else: CloudNativePG fills in the PgBouncer pod.
	if tpl := DatabasePooler(run).Spec.Template; tpl == nil || len(tpl.Spec.Containers) != 0 || tpl.Spec.Containers == nil {
		t.Errorf("pooler template %+v, want an empty container list and the secrets", tpl)
	}

	for pod, secrets := range podPullSecrets(t, fixtureRun()) {
		if secrets != nil {
			t.Errorf("without spec.imagePullSecrets, %s pulls with %v", pod, secrets)
		}
	}
	if DatabasePooler(fixtureRun()).Spec.Template != nil {
		t.Error("without spec.imagePullSecrets, the Pooler has a template")
	}
}
