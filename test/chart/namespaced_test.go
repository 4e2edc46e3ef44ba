package chart

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// TestHelmInstallNamespacedIntoEnvtest installs the chart with watchNamespace into envtest:
// the manager's rules are a Role in that namespace and no ClusterRole, its ServiceAccount may
// not read BenchmarkRuns elsewhere, and the manager built from the tree, started with the
// installed Deployment's arguments as that ServiceAccount, reconciles a run in its namespace
// and leaves one in another alone.
func TestHelmInstallNamespacedIntoEnvtest(t *testing.T) {
	env, cfg, c := startEnvtest(t, filepath.Join("test", "crds", "k6-operator"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const watched = "team-a"
	for _, name := range []string{namespace, watched} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	ports := freePorts(t, 2)
	values := map[string]any{
		"watchNamespace": watched,
		"presetImages":   map[string]any{"go-nethttp": "registry.example/gauntlet/go:test", "node-fastify": "registry.example/gauntlet/fastify:test"},
		"metrics":        map[string]any{"port": ports[0]},
		"probes":         map[string]any{"port": ports[1]},
		"prometheus":     map[string]any{"url": "http://127.0.0.1:1", "remoteWriteURL": "http://127.0.0.1:1/api/v1/write"},
	}
	admin := writeKubeconfig(t, env, "admin", []string{"system:masters"})
	if _, err := installer(t, admin).RunWithContext(ctx, loadChart(t), values); err != nil {
		t.Fatalf("helm install: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "gauntlet-manager"}, &rbacv1.ClusterRole{}); !apierrors.IsNotFound(err) {
		t.Errorf("ClusterRole gauntlet-manager in a namespaced install: %v, want NotFound", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: watched, Name: "gauntlet-manager"}, &rbacv1.Role{}); err != nil {
		t.Errorf("no Role gauntlet-manager in %s: %v", watched, err)
	}
	deploy := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "gauntlet-manager"}, deploy); err != nil {
		t.Fatal(err)
	}
	sa := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, deploy.Spec.Template.Spec.ServiceAccountName)
	asSA := rest.CopyConfig(cfg)
	asSA.Impersonate = rest.ImpersonationConfig{UserName: sa, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	saClient, err := client.New(asSA, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := saClient.List(ctx, &benchv1.BenchmarkRunList{}, client.InNamespace(watched)); err != nil {
		t.Errorf("the manager's ServiceAccount cannot list BenchmarkRuns in %s: %v", watched, err)
	}
	if err := saClient.List(ctx, &benchv1.BenchmarkRunList{}, client.InNamespace("default")); !apierrors.IsForbidden(err) {
		t.Errorf("the manager's ServiceAccount listing BenchmarkRuns in default: %v, want Forbidden", err)
	}

	// A run outside the watched namespace, there from the start: the manager must never touch it.
	outside := &benchv1.BenchmarkRun{}
	readYAML(t, filepath.Join(root, "config", "samples", "quickstart.yaml"), outside)
	outside.Namespace = "default"
	if err := c.Create(ctx, outside); err != nil {
		t.Fatal(err)
	}
	runManager(ctx, t, env, c, deploy, watched)
	if err := c.Get(ctx, client.ObjectKeyFromObject(outside), outside); err != nil {
		t.Fatal(err)
	}
	if outside.Status.Phase != "" || len(outside.Status.Conditions) != 0 {
		t.Errorf("the manager watching %s reconciled default/%s: phase %q, conditions %v", watched, outside.Name, outside.Status.Phase, outside.Status.Conditions)
	}
}
