// Package argocd runs charts/gauntlet/argocd-health.lua through Argo CD's own code: the
// script goes into an argocd-cm ConfigMap under
// resource.customizations.health.gauntlet.dev_BenchmarkRun, Argo CD's settings manager
// reads the overrides from it, and util/lua computes each BenchmarkRun's health. It is a
// Go module of its own because Argo CD pins Kubernetes libraries of another minor version
// than the operator's; the BenchmarkRuns in testdata/ are written and kept current by the
// operator's tests (controllers, TestArgoCDFixturesAreCurrent).
package argocd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

const (
	namespace = "argocd"
	healthKey = "resource.customizations.health.gauntlet.dev_BenchmarkRun"
	expectKey = "test.gauntlet.dev/argocd-health"
)

func overrides(t *testing.T, script string) lua.ResourceHealthOverrides {
	t.Helper()
	return overridesFor(t, healthKey, "gauntlet.dev/BenchmarkRun", script)
}

// overridesFor is Argo CD's reading of an argocd-cm holding script under key, for kind.
func overridesFor(t *testing.T, healthKey, kind, script string) lua.ResourceHealthOverrides {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: namespace,
			Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		Data: map[string]string{healthKey: script},
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: namespace,
			Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		Data: map[string][]byte{"server.secretkey": []byte("test")},
	}
	mgr := settings.NewSettingsManager(context.Background(), fake.NewClientset(cm, secret), namespace)
	o, err := mgr.GetResourceOverrides()
	if err != nil {
		t.Fatal(err)
	}
	if o[kind].HealthLua == "" {
		t.Fatalf("Argo CD read no health script for %s from %s: %v", kind, healthKey, o)
	}
	return o
}

func TestBenchmarkRunHealth(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "charts", "gauntlet", "argocd-health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	health := overrides(t, string(script))
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no BenchmarkRuns in testdata/")
	}
	seen := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := obj.GetAnnotations()[expectKey]
		got, err := health.GetResourceHealth(obj)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got == nil || string(got.Status) != want {
			t.Errorf("%s: Argo CD health %+v, want %s", f, got, want)
			continue
		}
		if got.Message == "" {
			t.Errorf("%s: %s with no message", f, got.Status)
		}
		seen[want]++
		t.Logf("%s: %s (%s)", filepath.Base(f), got.Status, got.Message)
	}
	for _, s := range []string{"Progressing", "Healthy", "Degraded"} {
		if seen[s] == 0 {
			t.Errorf("no case reads %s", s)
		}
	}
}

// The BenchmarkSchedule's health script on the schedules the operator's tests write
// (controllers/schedule, TestArgoCDScheduleFixturesAreCurrent).
func TestBenchmarkScheduleHealth(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "charts", "gauntlet", "argocd-health-schedule.lua"))
	if err != nil {
		t.Fatal(err)
	}
	health := overridesFor(t, "resource.customizations.health.gauntlet.dev_BenchmarkSchedule", "gauntlet.dev/BenchmarkSchedule", string(script))
	files, _ := filepath.Glob(filepath.Join("testdata", "schedules", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no BenchmarkSchedules in testdata/schedules/")
	}
	seen := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := obj.GetAnnotations()[expectKey]
		got, err := health.GetResourceHealth(obj)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got == nil || string(got.Status) != want || got.Message == "" {
			t.Errorf("%s: Argo CD health %+v, want %s with a message", f, got, want)
			continue
		}
		seen[want]++
		t.Logf("%s: %s (%s)", filepath.Base(f), got.Status, got.Message)
	}
	for _, s := range []string{"Progressing", "Healthy", "Degraded", "Suspended"} {
		if seen[s] == 0 {
			t.Errorf("no case reads %s", s)
		}
	}
}
