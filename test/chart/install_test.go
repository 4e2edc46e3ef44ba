package chart

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/kube"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preflight"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

const namespace = "gauntlet-system"

// TestHelmInstallIntoEnvtest installs the chart with helm v4's Go SDK into a real
// kube-apiserver that serves the other operators' CRDs but not Gauntlet's (the chart brings
// it), checks that every object of the release exists, then starts the manager built from
// this tree with the arguments of the installed Deployment, authenticated as the chart's
// ServiceAccount (so the chart's RBAC is what it runs with), and watches it reconcile a sample.
func TestHelmInstallIntoEnvtest(t *testing.T) {
	// k6-operator's CRD is installed later, to see the chart name it while it is missing.
	env, cfg, c := startEnvtest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The namespace enforces restricted pod security, as the README tells users to label it.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted"}}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	admin := writeKubeconfig(t, env, "admin", []string{"system:masters"})
	ports := freePorts(t, 2)
	values := map[string]any{
		"presetImages": map[string]any{"go-nethttp": "registry.example/gauntlet/go:test", "node-fastify": "registry.example/gauntlet/fastify:test"},
		"k6":           map[string]any{"image": "registry.example/k6:test"},
		"metrics":      map[string]any{"port": ports[0]},
		"probes":       map[string]any{"port": ports[1]},
		// Nothing listens at the default in envtest; the URL only has to parse.
		"prometheus": map[string]any{"url": "http://127.0.0.1:1", "remoteWriteURL": "http://127.0.0.1:1/api/v1/write"},
	}

	// k6-operator missing: failIfMissing refuses the install and names it (lookup works
	// against the server in a server-side dry run as in a real install).
	dry := installer(t, admin)
	dry.DryRunStrategy = action.DryRunServer
	_, err := dry.RunWithContext(ctx, loadChart(t), withValue(values, "prerequisites", map[string]any{"failIfMissing": true}))
	if err == nil || !strings.Contains(err.Error(), "k6-operator (testruns.k6.io)") || strings.Contains(err.Error(), "CloudNativePG") {
		t.Fatalf("install with k6-operator missing and prerequisites.failIfMissing: %v; want an error naming only k6-operator (testruns.k6.io)", err)
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{filepath.Join(root, "test", "crds", "k6-operator")}}); err != nil {
		t.Fatal(err)
	}

	rel, err := installer(t, admin).RunWithContext(ctx, loadChart(t), withValue(values, "prerequisites", map[string]any{"failIfMissing": true}))
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	release := rel.(*releasev1.Release)
	if !strings.Contains(release.Info.Notes, "CRDs are served") {
		t.Errorf("NOTES do not confirm the prerequisites:\n%s", release.Info.Notes)
	}
	if !strings.Contains(release.Info.Notes, "native-histograms") {
		t.Errorf("NOTES do not warn that no Prometheus has the remote-write receiver and native histograms:\n%s", release.Info.Notes)
	}
	kinds := checkEveryObjectExists(ctx, t, c, release.Manifest)
	for _, want := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment", "Service", "ServiceMonitor"} {
		if kinds[want] == 0 {
			t.Errorf("the release has no %s (kinds: %v)", want, kinds)
		}
	}
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	if err := c.Get(ctx, client.ObjectKey{Name: "benchmarkruns.gauntlet.dev"}, crd); err != nil {
		t.Fatalf("helm install did not create the BenchmarkRun CRD: %v", err)
	}
	if crd.GetAnnotations()["helm.sh/resource-policy"] != "keep" || crd.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
		t.Errorf("the BenchmarkRun CRD is not a release object kept on uninstall: annotations %v, labels %v", crd.GetAnnotations(), crd.GetLabels())
	}
	checkDefaultRolesAggregate(ctx, t, env, c)

	deploy := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "gauntlet-manager"}, deploy); err != nil {
		t.Fatal(err)
	}
	checkRestricted(ctx, t, c, deploy)
	runManager(ctx, t, env, c, deploy, "default")
}

func loadChart(t *testing.T) chart.Charter {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func installer(t *testing.T, kubeconfig string) *action.Install {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	ns := namespace
	flags.Namespace = &ns
	cfg := action.NewConfiguration()
	if err := cfg.Init(flags, namespace, "secret"); err != nil {
		t.Fatal(err)
	}
	inst := action.NewInstall(cfg)
	inst.ReleaseName = "gauntlet"
	inst.Namespace = namespace
	// envtest has no kubelet: nothing becomes ready, so wait only for hooks (there are none).
	inst.WaitStrategy = kube.HookOnlyStrategy
	inst.Timeout = time.Minute
	return inst
}

func withValue(values map[string]any, key string, v any) map[string]any {
	out := map[string]any{}
	for k, e := range values {
		out[k] = e
	}
	out[key] = v
	return out
}

// checkEveryObjectExists reads back each object of the release manifest from the API server.
func checkEveryObjectExists(ctx context.Context, t *testing.T, c client.Client, manifest string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	for _, doc := range strings.Split(manifest, "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if len(u.Object) == 0 {
			continue
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(u.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Namespace: u.GetNamespace(), Name: u.GetName()}, got); err != nil {
			t.Errorf("%s %s/%s of the release: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			continue
		}
		if got.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s %s is not labelled managed-by Helm", u.GetKind(), u.GetName())
		}
		kinds[u.GetKind()]++
	}
	return kinds
}

// checkRestricted submits the Deployment's pod template as a pod in the restricted
// namespace (server-side dry run): the PodSecurity admission plugin judges it.
func checkRestricted(ctx context.Context, t *testing.T, c client.Client, d *appsv1.Deployment) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "restricted-check", Namespace: namespace}, Spec: d.Spec.Template.Spec}
	if err := c.Create(ctx, pod, client.DryRunAll); err != nil {
		t.Errorf("the manager's pod is refused by restricted pod security: %v", err)
	}
	// The opposite case, so the acceptance above means something: a root pod is refused.
	root := pod.DeepCopy()
	root.Spec.SecurityContext.RunAsNonRoot = nil
	root.Spec.Containers[0].SecurityContext.RunAsNonRoot = nil
	root.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil
	if err := c.Create(ctx, root, client.DryRunAll); err == nil {
		t.Error("the namespace admitted a pod that may escalate privileges: PodSecurity is not enforcing")
	}
}

// runManager starts bin/manager built from this tree with the installed Deployment's args
// (only --targets-dir points at the tree's targets/ instead of the image's /targets),
// authenticated as the chart's ServiceAccount, and checks it reconciles the quickstart sample
// with the chart's images and records its preflight's Events on its own Pod.
func runManager(ctx context.Context, t *testing.T, env *envtest.Environment, c client.Client, d *appsv1.Deployment, runNamespace string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "manager")).CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/manager: %v\n%s", err, out)
	}
	container := d.Spec.Template.Spec.Containers[0]
	sa := d.Spec.Template.Spec.ServiceAccountName
	kubeconfig := writeKubeconfig(t, env, fmt.Sprintf("system:serviceaccount:%s:%s", namespace, sa),
		[]string{"system:serviceaccounts", "system:serviceaccounts:" + namespace})
	args := []string{"--kubeconfig=" + kubeconfig}
	for _, a := range container.Args {
		if a == "--targets-dir=/targets" {
			a = "--targets-dir=" + filepath.Join(root, "targets")
		}
		args = append(args, a)
	}
	logPath := filepath.Join(t.TempDir(), "manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The downward API's variables, as the Deployment sets them.
	const pod = "gauntlet-manager-5d8c7b9f6-x7k2p"
	cmd.Env = append(os.Environ(), "POD_NAME="+pod, "POD_NAMESPACE="+namespace, "POD_UID=3f6c2a9e-preflight")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("manager log:\n%s", out)
		}
	})

	// The probes answer on the port the chart configured (the readiness probe names it).
	probe := fmt.Sprintf("http://127.0.0.1:%d/readyz", containerPort(t, container, container.ReadinessProbe.HTTPGet.Port.String()))
	eventually(ctx, t, "the manager's /readyz answers 200", func() (bool, string) {
		resp, err := http.Get(probe)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})

	sample := &benchv1.BenchmarkRun{}
	readYAML(t, filepath.Join(root, "config", "samples", "quickstart.yaml"), sample)
	sample.Namespace = runNamespace
	if err := c.Create(ctx, sample); err != nil {
		t.Fatal(err)
	}
	// The targets from the chart's presetImages, and the generator floor's null responder
	// (generatorFloor on by default) from the manager's own image.
	want := map[string]string{
		specs.TargetName(sample, "go"):      "registry.example/gauntlet/go:test",
		specs.TargetName(sample, "fastify"): "registry.example/gauntlet/fastify:test",
		specs.NullResponderName(sample, ""): d.Spec.Template.Spec.Containers[0].Image,
	}
	for target, image := range want {
		key := client.ObjectKey{Namespace: sample.Namespace, Name: target}
		dep := &appsv1.Deployment{}
		eventually(ctx, t, "the manager deploys "+target, func() (bool, string) {
			if err := c.Get(ctx, key, dep); err != nil {
				return false, err.Error()
			}
			return true, ""
		})
		if got := dep.Spec.Template.Spec.Containers[0].Image; got != image {
			t.Errorf("%s runs %s, want %s (the chart's presetImages, or the manager's image for the null responder)", target, got, image)
		}
		// Play the Deployment controller (envtest has none): one pod available.
		dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
		if err := c.Status().Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
	}
	eventually(ctx, t, "the run's dependencies and targets are ready", func() (bool, string) {
		run := &benchv1.BenchmarkRun{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(sample), run); err != nil {
			return false, err.Error()
		}
		deps := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDependenciesReady)
		targets := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionTargetsReady)
		ok := deps != nil && deps.Status == metav1.ConditionTrue && targets != nil && targets.Status == metav1.ConditionTrue
		return ok, fmt.Sprintf("phase %s, conditions %v", run.Status.Phase, run.Status.Conditions)
	})
	// Leader election ran in the release namespace, with the chart's Role.
	lease := &unstructured.Unstructured{}
	lease.SetAPIVersion("coordination.k8s.io/v1")
	lease.SetKind("Lease")
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "gauntlet-manager.gauntlet.dev"}, lease); err != nil {
		t.Errorf("no leader-election Lease in %s: %v", namespace, err)
	}
	// The preflight's Events land on the manager's own Pod, in the release namespace, with
	// the chart's RBAC: the chart's Prometheus is out of reach here, so a check fails.
	eventually(ctx, t, "a PreflightFailed Event on the manager's Pod", func() (bool, string) {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Reason == preflight.ReasonFailed && e.Regarding.Kind == "Pod" && e.Regarding.Name == pod {
				return true, ""
			}
			seen = append(seen, e.Reason+" "+e.Regarding.Name)
		}
		return false, fmt.Sprintf("events in %s: %v", namespace, seen)
	})
}

func containerPort(t *testing.T, c corev1.Container, name string) int {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return int(p.ContainerPort)
		}
	}
	t.Fatalf("container %s has no port %s", c.Name, name)
	return 0
}

// writeKubeconfig writes a kubeconfig of a certificate-authenticated envtest user.
func writeKubeconfig(t *testing.T, env *envtest.Environment, name string, groups []string) string {
	t.Helper()
	user, err := env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var listeners []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range listeners {
		l.Close()
	}
	return ports
}

func eventually(ctx context.Context, t *testing.T, what string, check func() (bool, string)) {
	t.Helper()
	last := ""
	for {
		ok, detail := check()
		if ok {
			return
		}
		last = detail
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s: %s", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
