//go:build lab

package lab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// labPresets are every preset (each folder of targets/ with a target.yaml), as
// hack/lab/images.sh builds them all; LAB_PRESETS (comma-separated) narrows the set.
func labPresets(t *testing.T, root string) []string {
	if v := os.Getenv("LAB_PRESETS"); v != "" {
		return strings.Split(v, ",")
	}
	files, err := filepath.Glob(filepath.Join(root, "targets", "*", "target.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no presets under %s/targets: %v", root, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(filepath.Dir(f)))
	}
	return names
}

// testTargets: each preset's image starts in the lab as the operator deploys it (the
// Deployment and Service of internal/specs: non-root, read-only root filesystem, restricted
// namespace) and passes `gauntlet verify` through its Service, run from the operator image
// in a pod. The database endpoints wait for the database tier; every other endpoint the
// preset declares is checked. Two targets at a time: 500m each beside the lab's standing pods
// fits the node's 2,000m, and each spends most of its time waiting for its pod.
func (l *lab) testTargets(t *testing.T) {
	cfg := labConfig(t, l.root)
	ns := l.restrictedNamespace(t, "lab-targets")
	slots := make(chan struct{}, 2)
	for _, name := range labPresets(t, l.root) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			t.Cleanup(func() { <-slots }) // after verifyTarget's cleanup: its pod is gone
			p, err := preset.Load(filepath.Join(l.root, "targets", name))
			if err != nil {
				t.Fatal(err)
			}
			l.verifyTarget(t, ns, p, cfg)
		})
	}
}

func (l *lab) verifyTarget(t *testing.T, ns string, p *preset.Preset, cfg specs.Config) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "lab", Namespace: ns}}
	target := benchv1.Target{Name: p.Name, Preset: p.Name, Workers: 1, Resources: benchv1.Resources{
		CPU: ptr.To(resource.MustParse("500m")), Memory: ptr.To(resource.MustParse("512Mi")),
	}}
	dep := specs.TargetDeployment(run, target, cfg)
	svc := specs.TargetService(run, target)
	// No BenchmarkRun object exists here to own them: the test deletes them itself.
	dep.OwnerReferences, svc.OwnerReferences = nil, nil
	c := ctx(t, 5*time.Minute)
	apps := l.client.AppsV1().Deployments(ns)
	if _, err := apps.Create(c, dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Deployment: %v", err)
	}
	if _, err := l.client.CoreV1().Services(ns).Create(c, svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Service: %v", err)
	}
	t.Cleanup(func() {
		bg := context.Background()
		_ = apps.Delete(bg, dep.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
		_ = l.client.CoreV1().Services(ns).Delete(bg, svc.Name, metav1.DeleteOptions{})
		// Wait until its pod is gone, so the next target's fits.
		_ = wait.PollUntilContextTimeout(bg, time.Second, 2*time.Minute, true, func(c context.Context) (bool, error) {
			pods, err := l.client.CoreV1().Pods(ns).List(c, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(dep.Spec.Selector)})
			return err == nil && len(pods.Items) == 0, nil
		})
	})

	err := wait.PollUntilContextCancel(c, 2*time.Second, true, func(c context.Context) (bool, error) {
		d, err := apps.Get(c, dep.Name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == 1, nil
	})
	if err != nil {
		t.Fatalf("target %s not ready: %s", p.Name, l.selectorDiagnostics(ns, metav1.FormatLabelSelector(dep.Spec.Selector)))
	}

	var endpoints []string
	for _, e := range p.Endpoints {
		if !e.IsDB() {
			endpoints = append(endpoints, string(e))
		}
	}
	args := []string{"/gauntlet", "verify", "--url", specs.TargetBaseURL(run, target), "--endpoints", strings.Join(endpoints, ",")}
	if !p.KeepsAlive() {
		args = append(args, "--no-keep-alive")
	}
	phase, log := l.runPod(t, ns, "verify-"+p.Name, operatorImage(t, l.root), args, 4*time.Minute)
	if phase != corev1.PodSucceeded {
		t.Errorf("gauntlet verify of %s through its Service: pod %s\n%s", p.Name, phase, log)
	}
}

// labConfig is the operator's configuration as the lab's install has it: the presets'
// images pulled from the lab's registry, where hack/lab/images.sh pushed them (the chart's
// imageRegistry value makes the same change).
func labConfig(t *testing.T, root string) specs.Config {
	cfg, err := specs.LoadConfig(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	for p, image := range cfg.Images {
		cfg.Images[p] = registryImage(image)
	}
	return cfg
}

// labRegistry is the lab's registry (LAB_REGISTRY in hack/lab/env.sh).
const labRegistry = "10.239.255.2:5000"

// registryImage is where the lab's registry holds one of the product's images: the chart's
// imageRegistry value makes the same change to the release's image references.
func registryImage(ref string) string {
	_, path, _ := strings.Cut(ref, "/")
	return labRegistry + "/" + path
}

// operatorImage is the image config/manager deploys, as the lab's registry holds it
// (hack/lab/images.sh pushes its build there).
func operatorImage(t *testing.T, root string) string {
	raw, err := os.ReadFile(filepath.Join(root, "config", "manager", "manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "image:" {
			return registryImage(f[1])
		}
	}
	t.Fatal("config/manager/manager.yaml names no image")
	return ""
}

// selectorDiagnostics tells why pods are not ready: their status, events and logs.
func (l *lab) selectorDiagnostics(ns, selector string) string {
	pods, err := l.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, p := range pods.Items {
		b.WriteString(p.Name + " " + string(p.Status.Phase) + "\n")
		for _, cs := range p.Status.ContainerStatuses {
			b.WriteString("  " + cs.Name + ": " + cs.State.String() + "\n")
		}
		b.WriteString(l.podEvents(ns, p.Name))
		b.WriteString(l.podLog(ns, p.Name))
	}
	return b.String()
}
