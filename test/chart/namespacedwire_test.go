package chart

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The namespaced install with wire capture, as the API server enforces its RBAC: the
// manager's ServiceAccount may list the agents' pods in the release namespace (without
// that every trial read CaptureMissing) and the run's pods and ReplicaSets in the watched
// one, may not list nodes (the node-pool check then compares selectors alone), and reads
// nothing in a third namespace. The agents' own ServiceAccount may review tokens (how
// they authenticate the manager) and may not read the release namespace's Secrets.
func TestNamespacedInstallRBACForWireCapture(t *testing.T) {
	const release, watched = "gauntlet-system", "team-a"
	out, err := helm(t, "template", "gauntlet", chartDir, "--namespace", release,
		"--set", "wireCapture.enabled=true", "--set", "watchNamespace="+watched)
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, c := startEnvtest(t, filepath.Join("config", "crd", "bases"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, ns := range []string{release, watched, "team-b"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	sa, agentSA := "", ""
	for _, o := range decode(t, out) {
		var obj client.Object
		switch o.Kind {
		case "Role":
			obj = &rbacv1.Role{}
		case "RoleBinding":
			obj = &rbacv1.RoleBinding{}
		case "ClusterRole":
			obj = &rbacv1.ClusterRole{}
		case "ClusterRoleBinding":
			obj = &rbacv1.ClusterRoleBinding{}
		case "ServiceAccount":
			obj = &corev1.ServiceAccount{}
		default:
			continue
		}
		mustUnmarshal(t, o.Raw, obj)
		if obj.GetNamespace() == "" && (o.Kind == "Role" || o.Kind == "RoleBinding" || o.Kind == "ServiceAccount") {
			obj.SetNamespace(release)
		}
		if o.Kind == "ServiceAccount" && strings.HasSuffix(obj.GetName(), "wire-agent") {
			agentSA = fmt.Sprintf("system:serviceaccount:%s:%s", obj.GetNamespace(), obj.GetName())
		} else if o.Kind == "ServiceAccount" && sa == "" {
			sa = fmt.Sprintf("system:serviceaccount:%s:%s", obj.GetNamespace(), obj.GetName())
		}
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s %s: %v", o.Kind, o.Metadata.Name, err)
		}
	}
	if sa == "" {
		t.Fatal("the chart renders no ServiceAccount")
	}
	asSA := rest.CopyConfig(cfg)
	asSA.Impersonate = rest.ImpersonationConfig{UserName: sa, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	if err := benchv1.AddToScheme(scheme.Scheme); err != nil {
		t.Fatal(err)
	}
	sac, err := client.New(asSA, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		list client.ObjectList
		ns   string
		ok   bool
	}{
		{"the agents' pods in the release namespace", &corev1.PodList{}, release, true},
		{"the run's pods in the watched namespace", &corev1.PodList{}, watched, true},
		{"pods in another tenant's namespace", &corev1.PodList{}, "team-b", false},
		{"BenchmarkRuns in another tenant's namespace", &benchv1.BenchmarkRunList{}, "team-b", false},
		{"nodes (cluster-scoped: a Role cannot grant them)", &corev1.NodeList{}, "", false},
	} {
		var opts []client.ListOption
		if c.ns != "" {
			opts = append(opts, client.InNamespace(c.ns))
		}
		err := sac.List(ctx, c.list, opts...)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v, want allowed", c.what, err)
		case !c.ok && !apierrors.IsForbidden(err):
			t.Errorf("%s: %v, want Forbidden", c.what, err)
		}
	}

	if agentSA == "" {
		t.Fatal("the chart renders no ServiceAccount for the wire agents")
	}
	asAgent := rest.CopyConfig(cfg)
	asAgent.Impersonate = rest.ImpersonationConfig{UserName: agentSA, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	agent, err := kubernetes.NewForConfig(asAgent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "x"}},
		metav1.CreateOptions{}); err != nil {
		t.Errorf("the wire agents' ServiceAccount creating a TokenReview: %v, want allowed", err)
	}
	if _, err := agent.CoreV1().Secrets(release).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the wire agents' ServiceAccount listing Secrets: %v, want Forbidden", err)
	}
}
