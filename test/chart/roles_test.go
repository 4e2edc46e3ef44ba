package chart

import (
	"context"
	"path/filepath"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// checkDefaultRolesAggregate: a user bound to the built-in `edit` ClusterRole in a namespace
// may create a BenchmarkRun there, one bound to `view` may list them but not create one. The
// built-in roles and their aggregationRules are the API server's own (its RBAC bootstrap
// policy creates them); filling their rules from the selected ClusterRoles is
// kube-controller-manager's clusterrole-aggregation controller, which envtest does not run, so
// the test plays it, as it plays the Deployment controller.
func checkDefaultRolesAggregate(ctx context.Context, t *testing.T, env *envtest.Environment, c client.Client) {
	t.Helper()
	for _, name := range []string{"admin", "edit", "view"} {
		aggregate(ctx, t, c, name)
	}
	const ns = "default"
	for user, role := range map[string]string{"alice": "edit", "bob": "view"} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user + "-" + role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
		}
		if err := c.Create(ctx, rb); err != nil {
			t.Fatal(err)
		}
	}
	as := func(user string) client.Client {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		uc, err := client.New(cfg, client.Options{Scheme: c.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		return uc
	}
	run := &benchv1.BenchmarkRun{}
	readYAML(t, filepath.Join(root, "config", "samples", "quickstart.yaml"), run)
	run.Namespace, run.Name = ns, "edit-role-check"
	// Server-side dry run: authorized and admitted like a create, nothing stored for the
	// manager started later to reconcile.
	if err := as("alice").Create(ctx, run.DeepCopy(), client.DryRunAll); err != nil {
		t.Errorf("a user bound to edit cannot create a BenchmarkRun: %v", err)
	}
	if err := as("bob").List(ctx, &benchv1.BenchmarkRunList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("a user bound to view cannot list BenchmarkRuns: %v", err)
	}
	if err := as("bob").Create(ctx, run.DeepCopy(), client.DryRunAll); !apierrors.IsForbidden(err) {
		t.Errorf("a user bound to view creating a BenchmarkRun: %v, want Forbidden", err)
	}
	// The opposite case: without a binding in the namespace, edit's rules give nothing.
	if err := as("alice").List(ctx, &benchv1.BenchmarkRunList{}, client.InNamespace("kube-system")); !apierrors.IsForbidden(err) {
		t.Errorf("alice listing BenchmarkRuns where she has no binding: %v, want Forbidden", err)
	}
}

// aggregate does what the clusterrole-aggregation controller does for one ClusterRole: its
// rules become the union of the rules of every ClusterRole its aggregationRule selects.
func aggregate(ctx context.Context, t *testing.T, c client.Client, name string) {
	t.Helper()
	role := &rbacv1.ClusterRole{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, role); err != nil {
		t.Fatalf("the built-in ClusterRole %s (bootstrap policy): %v", name, err)
	}
	if role.AggregationRule == nil {
		t.Fatalf("the built-in ClusterRole %s has no aggregationRule", name)
	}
	var rules []rbacv1.PolicyRule
	selected := map[string]bool{}
	for _, sel := range role.AggregationRule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			t.Fatal(err)
		}
		list := &rbacv1.ClusterRoleList{}
		if err := c.List(ctx, list, client.MatchingLabelsSelector{Selector: s}); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Items {
			if r.Name == name || selected[r.Name] {
				continue
			}
			selected[r.Name] = true
			rules = append(rules, r.Rules...)
		}
	}
	want := "gauntlet-view"
	if name != "view" {
		want = "gauntlet-edit"
	}
	if !selected[want] {
		t.Errorf("the built-in %s ClusterRole's aggregationRule does not select the chart's %s (selected %d roles)", name, want, len(selected))
	}
	role.Rules = rules
	if err := c.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
}
