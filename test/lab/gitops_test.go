//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

var (
	gitRepositoryGVR = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
	kustomizationGVR = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
)

const fluxNamespace = "flux-system"

// testFluxPipeline: Flux's source-controller and kustomize-controller, built from their
// modules, apply BenchmarkRuns from a Git repository served in the lab, and their health
// checks wait on the runs: the Kustomization is Ready only once its run has Succeeded, and
// not Ready, naming the run, once its run has Failed. A BenchmarkSchedule from the same
// repository starts a run when a commit changes its image, and another when the image's tag
// moves to a new digest (testScheduleGitOps).
func (l *lab) testFluxPipeline(t *testing.T) {
	start := time.Now()
	l.command(t, "hack/lab/flux-install.sh")
	t.Logf("Flux installed in %s", time.Since(start).Round(time.Second))
	// Registered first, so it runs last: after the Kustomizations' deletions (applyFlux).
	t.Cleanup(func() { l.stopFlux(t) })

	pass, fail := l.restrictedNamespace(t, "gitops-pass"), l.restrictedNamespace(t, "gitops-fail")
	// Small enough to run beside a seed (drillDoc's sizes), 20 s of load.
	passRun := drillRun(t, "gitops-pass", "name: go, preset: go-nethttp", "")
	if err := unstructured.SetNestedField(passRun.Object, "20s", "spec", "load", "duration"); err != nil {
		t.Fatal(err)
	}
	// A rate that one 100m runner per the API's 64 cannot generate: sizing Auto refuses it,
	// and the operator fails the run when it first reads it.
	failRun := drillDoc(t, "gitops-fail", "name: go, preset: go-nethttp", "ping", "")
	if err := unstructured.SetNestedSlice(failRun.Object, []any{int64(1000000)}, "spec", "load", "rates"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(failRun.Object, "Auto", "spec", "loadGenerator", "sizing"); err != nil {
		t.Fatal(err)
	}
	scheduled := l.restrictedNamespace(t, gitopsScheduleName)
	l.serveRepository(t, map[string]*unstructured.Unstructured{"pass/run.yaml": passRun, "fail/run.yaml": failRun,
		"schedule/schedule.yaml": gitopsSchedule(t, gitopsImage("0.1.0"))})
	l.applyFlux(t, fmt.Sprintf(`
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: benchmarks, namespace: %s}
spec:
  interval: 1h
  url: http://gitserver.%[1]s.svc.cluster.local/benchmarks.git
  ref: {branch: main}
  timeout: 60s
`, fluxNamespace), gitRepositoryGVR)
	for _, ns := range []string{pass, fail} {
		// wait: true checks the health of everything applied, here the one run; the timeout
		// covers its provisioning, verification and trial on a node the seeds keep busy.
		l.applyFlux(t, kustomization(ns, strings.TrimPrefix(ns, "gitops-"), "  wait: true\n  timeout: 15m\n"), kustomizationGVR)
	}
	// The schedule's health is not waited on: each commit must apply at once.
	l.applyFlux(t, kustomization(scheduled, "schedule", ""), kustomizationGVR)

	// One after the other, not in parallel: the first watches from the moment Flux has its
	// objects (a parallel subtest waits for a free slot, by when the run may have finished);
	// the second only reads where its Kustomization ended.
	t.Run("a run that succeeds", func(t *testing.T) { l.checkReadyOnSuccess(t, pass, passRun.GetName()) })
	t.Run("a run that fails", func(t *testing.T) { l.checkNotReadyOnFailure(t, fail, failRun.GetName()) })
	t.Run("a schedule's image changed in Git, then pushed anew", func(t *testing.T) { l.testScheduleGitOps(t, scheduled) })
}

// kustomization applies the repository's folder path into namespace ns (a Kustomization of
// the same name in flux-system), with extra spec lines.
func kustomization(ns, path, extra string) string {
	return fmt.Sprintf(`
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  interval: 1h
  sourceRef: {kind: GitRepository, name: benchmarks}
  path: ./%[3]s
  targetNamespace: %[1]s
  prune: true
%[4]s`, ns, fluxNamespace, path, extra)
}

// stopFlux scales Flux's controllers and the Git server to nothing once the Kustomizations
// are gone (their finalizers need kustomize-controller): the seeds after this subtest get
// back the 160m of CPU the controllers request, on a node where a trial's runner needs 200m.
func (l *lab) stopFlux(t *testing.T) {
	c := ctx(t, 3*time.Minute)
	err := wait.PollUntilContextCancel(c, 2*time.Second, true, func(c context.Context) (bool, error) {
		ks, err := l.dyn.Resource(kustomizationGVR).Namespace(fluxNamespace).List(c, metav1.ListOptions{})
		return err == nil && len(ks.Items) == 0, nil
	})
	if err != nil {
		t.Errorf("Kustomizations still there after their deletion: %v", err)
		return
	}
	deps, err := l.client.AppsV1().Deployments(fluxNamespace).List(c, metav1.ListOptions{})
	if err != nil {
		t.Errorf("Flux's Deployments: %v", err)
		return
	}
	for _, d := range deps.Items {
		scale, err := l.client.AppsV1().Deployments(fluxNamespace).GetScale(c, d.Name, metav1.GetOptions{})
		if err == nil {
			scale.Spec.Replicas = 0
			_, err = l.client.AppsV1().Deployments(fluxNamespace).UpdateScale(c, d.Name, scale, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("scaling %s to 0: %v", d.Name, err)
		}
	}
}

// serveRepository runs the lab's Git server in flux-system with files (path: document)
// committed to branch main, and waits until it answers git's first request.
func (l *lab) serveRepository(t *testing.T, files map[string]*unstructured.Unstructured) {
	c := ctx(t, 5*time.Minute)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "benchmarks", Namespace: fluxNamespace}, Data: map[string]string{}}
	var items []corev1.KeyToPath
	for path, u := range files {
		doc, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		key := strings.ReplaceAll(path, "/", "_") // a ConfigMap's keys have no folders; the volume's items do
		cm.Data[key] = string(doc)
		items = append(items, corev1.KeyToPath{Key: key, Path: path})
	}
	if _, err := l.client.CoreV1().ConfigMaps(fluxNamespace).Create(c, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "gitserver"}
	psc, sc := restricted()
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "gitserver", Namespace: fluxNamespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: psc,
					Containers: []corev1.Container{{
						Name: "gitserver", Image: "gauntlet.local/flux-gitserver:lab", ImagePullPolicy: corev1.PullIfNotPresent,
						Args:            []string{"-dir", "/repo", "-listen", ":8080"},
						SecurityContext: sc,
						Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Path: "/benchmarks.git/info/refs?service=git-upload-pack", Port: intstr.FromString("http"),
						}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "repo", MountPath: "/repo", ReadOnly: true}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi"),
						}},
					}},
					Volumes: []corev1.Volume{{Name: "repo", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
						LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items,
					}}}},
				},
			},
		},
	}
	if _, err := l.client.AppsV1().Deployments(fluxNamespace).Create(c, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "gitserver", Namespace: fluxNamespace},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromString("http"),
		}}},
	}
	if _, err := l.client.CoreV1().Services(fluxNamespace).Create(c, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextCancel(c, 2*time.Second, true, func(c context.Context) (bool, error) {
		d, err := l.client.AppsV1().Deployments(fluxNamespace).Get(c, dep.Name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas >= 1, nil
	})
	if err != nil {
		t.Fatalf("the Git server is not ready: %v\n%s", err, l.selectorDiagnostics(fluxNamespace, "app=gitserver"))
	}
}

// applyFlux creates a Flux object from YAML and deletes it when the test ends (a
// Kustomization's deletion prunes what it applied).
func (l *lab) applyFlux(t *testing.T, doc string, gvr schema.GroupVersionResource) {
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if _, err := l.dyn.Resource(gvr).Namespace(u.GetNamespace()).Create(ctx(t, time.Minute), &u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	t.Cleanup(func() {
		_ = l.dyn.Resource(gvr).Namespace(u.GetNamespace()).Delete(context.Background(), u.GetName(), metav1.DeleteOptions{})
	})
}

// fluxReady is a Flux object's Ready condition (status "" when it has none yet).
func (l *lab) fluxReady(c context.Context, gvr schema.GroupVersionResource, name string) (metav1.Condition, error) {
	u, err := l.dyn.Resource(gvr).Namespace(fluxNamespace).Get(c, name, metav1.GetOptions{})
	if err != nil {
		return metav1.Condition{}, err
	}
	var st struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	if status, ok := u.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, &st); err != nil {
			return metav1.Condition{}, err
		}
	}
	if cond := meta.FindStatusCondition(st.Conditions, "Ready"); cond != nil {
		return *cond, nil
	}
	return metav1.Condition{}, nil
}

// checkReadyOnSuccess: while the run has not Succeeded the Kustomization is seen not Ready
// (its health check in progress), it never reads Ready before the run has Succeeded, and it
// turns Ready once the run has.
func (l *lab) checkReadyOnSuccess(t *testing.T, ns, name string) {
	start := time.Now()
	var ready metav1.Condition
	var run *benchv1.BenchmarkRun
	var waiting int // observations of a run not yet Succeeded under a Kustomization not Ready
	var firstApplied time.Duration
	err := wait.PollUntilContextTimeout(ctx(t, 20*time.Minute), 2*time.Second, 18*time.Minute, true, func(c context.Context) (bool, error) {
		// The Kustomization first, then the run: a run read afterwards that has not
		// Succeeded had not when the Kustomization was read either.
		var err error
		if ready, err = l.fluxReady(c, kustomizationGVR, ns); err != nil {
			return false, nil
		}
		if run, err = l.getRun(c, ns, name); err != nil {
			return false, nil // not applied yet
		}
		if firstApplied == 0 {
			firstApplied = time.Since(start)
		}
		succeeded := run.Status.Phase == benchv1.PhaseSucceeded
		if ready.Status == metav1.ConditionTrue && !succeeded {
			return false, fmt.Errorf("the Kustomization is Ready (%s: %s) while the run is %q", ready.Reason, ready.Message, run.Status.Phase)
		}
		if ready.Status != metav1.ConditionTrue && !succeeded {
			waiting++
			if waiting == 1 {
				t.Logf("run applied after %s; Kustomization Ready=%s %s: %s; run phase %q", firstApplied.Round(time.Second),
					ready.Status, ready.Reason, ready.Message, run.Status.Phase)
			}
		}
		// A run that succeeded with no valid row is Failed to kstatus: its Kustomization's
		// health check fails, as for a failed run.
		inconclusive := succeeded && meta.IsStatusConditionFalse(run.Status.Conditions, benchv1.ConditionConclusive)
		return ready.Status == metav1.ConditionTrue || run.Status.Phase == benchv1.PhaseFailed ||
			(inconclusive && ready.Status == metav1.ConditionFalse && ready.Reason == "HealthCheckFailed"), nil
	})
	if err != nil || run == nil {
		t.Fatalf("%v; Kustomization Ready %+v; run %v\n%s", err, ready, runSummary(run), l.fluxDiagnostics(t))
	}
	t.Logf("Kustomization Ready=%s (%s: %s) after %s; run %s, headline %q; seen not Ready while the run ran %d times (every 2 s)",
		ready.Status, ready.Reason, ready.Message, time.Since(start).Round(time.Second), run.Status.Phase, run.Status.Headline, waiting)
	if run.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("the run %s, want Succeeded:\n%s", run.Status.Phase, conditions(run.Status.Conditions))
	}
	for _, r := range run.Status.Results {
		t.Logf("row %s/%s@%d: valid %t, flags %v, %d mRPS, p99 %dµs", r.Target, r.Scenario, r.LoadPoint, r.Valid, r.Flags,
			r.AchievedMilliRPS.Median, r.P99Micros.Median)
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive); c != nil && c.Status == metav1.ConditionFalse {
		// Every row flagged on the busy node: the pipeline must not pass it, and says why.
		if ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, fmt.Sprintf("BenchmarkRun/%s/%s", ns, name)) {
			t.Errorf("the run is inconclusive (%s), yet the Kustomization is Ready=%s: %s", c.Message, ready.Status, ready.Message)
		}
		t.Logf("the run succeeded with no valid row (%s): the Kustomization's health check failed, as it must", c.Message)
		return
	}
	if waiting == 0 {
		t.Errorf("the Kustomization was never seen not Ready while the run was still running")
	}
	// Seconds on both sides (the API's timestamps).
	if run.Status.FinishedAt == nil || ready.LastTransitionTime.Before(&metav1.Time{Time: run.Status.FinishedAt.Truncate(time.Second)}) {
		t.Errorf("the Kustomization turned Ready at %s, before the run finished at %v", ready.LastTransitionTime, run.Status.FinishedAt)
	}
}

// checkNotReadyOnFailure: the Kustomization ends Ready=False, its health check failed, and
// its message names the failed run.
func (l *lab) checkNotReadyOnFailure(t *testing.T, ns, name string) {
	start := time.Now()
	var ready metav1.Condition
	var run *benchv1.BenchmarkRun
	err := wait.PollUntilContextTimeout(ctx(t, 10*time.Minute), 2*time.Second, 8*time.Minute, true, func(c context.Context) (bool, error) {
		var err error
		if ready, err = l.fluxReady(c, kustomizationGVR, ns); err != nil {
			return false, nil
		}
		if run, err = l.getRun(c, ns, name); err != nil {
			return false, nil
		}
		if ready.Status == metav1.ConditionTrue {
			return false, fmt.Errorf("the Kustomization is Ready (%s: %s) with the run %q", ready.Reason, ready.Message, run.Status.Phase)
		}
		return ready.Status == metav1.ConditionFalse && ready.Reason == "HealthCheckFailed", nil
	})
	if err != nil || run == nil {
		t.Fatalf("%v; Kustomization Ready %+v; run %v\n%s", err, ready, runSummary(run), l.fluxDiagnostics(t))
	}
	stalled := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionStalled)
	t.Logf("Kustomization Ready=False after %s: %s; run %s, Stalled: %+v", time.Since(start).Round(time.Second), ready.Message, run.Status.Phase, stalled)
	if run.Status.Phase != benchv1.PhaseFailed || stalled == nil || stalled.Status != metav1.ConditionTrue {
		t.Fatalf("the run %s, Stalled %+v: want Failed and Stalled", run.Status.Phase, stalled)
	}
	for _, want := range []string{fmt.Sprintf("BenchmarkRun/%s/%s", ns, name), "Failed"} {
		if !strings.Contains(ready.Message, want) {
			t.Errorf("the Kustomization's Ready message does not say %q: %s", want, ready.Message)
		}
	}
	if strings.Contains(ready.Message, stalled.Message) {
		t.Logf("the Kustomization's message carries the run's: %s", stalled.Message)
	}
}

func runSummary(run *benchv1.BenchmarkRun) string {
	if run == nil {
		return "not applied"
	}
	return fmt.Sprintf("phase %q\n%s", run.Status.Phase, conditions(run.Status.Conditions))
}

// fluxDiagnostics: the Flux objects and controllers' last log lines, for a failure.
func (l *lab) fluxDiagnostics(t *testing.T) string {
	var b strings.Builder
	for _, what := range [][]string{
		{"get", "gitrepositories,kustomizations", "-o", "yaml"},
		{"logs", "deployment/source-controller", "--tail", "20"},
		{"logs", "deployment/kustomize-controller", "--tail", "20"},
		{"logs", "deployment/gitserver", "--tail", "20"},
	} {
		out, _ := exec.Command(l.kubectl(), append([]string{"--kubeconfig", filepath.Join(l.root, ".cache/lab/admin.kubeconfig"), "-n", fluxNamespace}, what...)...).CombinedOutput()
		fmt.Fprintf(&b, "kubectl %s:\n%s\n", strings.Join(what, " "), tail(string(out), 80))
	}
	return b.String()
}
