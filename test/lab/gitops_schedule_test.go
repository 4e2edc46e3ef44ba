//go:build lab && labfull

package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

const gitopsScheduleName = "gitops-schedule"

// gitopsImage is go-nethttp's image in the lab's registry under tag: the schedule's target
// runs it as a bring-your-own image, the way a team's own service is named in Git.
func gitopsImage(tag string) string {
	return labRegistry + "/gauntlet-bench/target-go-nethttp:" + tag
}

// gitopsSchedule is the BenchmarkSchedule kept in Git: no cron time falls within the test
// (January 1st), so only its triggers start runs: a commit that changes the template, and a
// new digest behind the image's tag.
func gitopsSchedule(t *testing.T, image string) *unstructured.Unstructured {
	t.Helper()
	doc := fmt.Sprintf(`
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkSchedule
metadata: {name: %s}
spec:
  schedule: "0 0 1 1 *"
  concurrencyPolicy: Forbid
  triggers: {templateChanges: true, imageDigests: true, pollInterval: 1m}
  template:
    spec:
      targets:
      - {name: go, image: %q, port: 8080, resources: {cpu: 50m, memory: 64Mi}}
      loadGenerator: {resources: {cpu: 100m, memory: 256Mi}}
      scenarios: [{name: ping, workload: ping}]
      load: {model: Open, rates: [50], warmup: 2s, duration: 12s, repetitions: 1, maxVUs: 20}
`, gitopsScheduleName, image)
	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return &u
}

// pushTag copies the registry's go-nethttp image to tag with a label that gives it a new
// digest (what a rebuild pushes), and returns that digest.
func (l *lab) pushTag(t *testing.T, tag, build string) string {
	reg := filepath.Join(l.root, "bin", "lab", "registry")
	l.command(t, reg, "relabel", gitopsImage("0.1.0"), gitopsImage(tag), "dev.gauntlet.lab.build="+build)
	return strings.TrimSpace(l.command(t, reg, "digest", gitopsImage(tag)))
}

// testScheduleGitOps: the schedule applied by Flux starts no run by itself; a commit that
// changes its target's image starts one (trigger TemplateChange), and a new image pushed
// under that tag another (trigger ImageDigest), each running to Succeeded on the image
// pulled from the lab's registry.
func (l *lab) testScheduleGitOps(t *testing.T, ns string) {
	c := ctx(t, 25*time.Minute)
	// Flux applied the first commit: the schedule records its template and digest, no run.
	var s *benchv1.BenchmarkSchedule
	err := wait.PollUntilContextTimeout(c, 2*time.Second, 5*time.Minute, true, func(c context.Context) (bool, error) {
		var err error
		s, err = l.getSchedule(c, ns, gitopsScheduleName)
		return err == nil && len(s.Status.ImageDigests) > 0, nil
	})
	if err != nil {
		t.Fatalf("the schedule from Git has no recorded digests after 5 minutes: %v; %+v\n%s", err, s, l.fluxDiagnostics(t))
	}
	if runs := l.scheduledRuns(t, ns); len(runs) != 0 {
		t.Fatalf("the schedule started %d runs before any commit or push: %v", len(runs), runs)
	}
	t.Logf("applied by Flux; digests recorded %+v", s.Status.ImageDigests)

	digestB := l.pushTag(t, "0.1.0-b", "b")
	start := time.Now()
	l.commit(t, "schedule/schedule.yaml", gitopsSchedule(t, gitopsImage("0.1.0-b")))
	run := l.waitTriggeredRun(t, ns, benchv1.TriggerTemplateChange, 8*time.Minute)
	t.Logf("the commit started %s in %s; it ran to %s", run.Name, time.Since(start).Round(time.Second), run.Status.Phase)
	if run.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("run %s after the commit: %s, want Succeeded\n%s", run.Name, run.Status.Phase, conditions(run.Status.Conditions))
	}

	digestC := l.pushTag(t, "0.1.0-b", "c")
	if digestC == digestB {
		t.Fatalf("the second push kept digest %s: the trigger would have nothing to see", digestB)
	}
	start = time.Now()
	run = l.waitTriggeredRun(t, ns, benchv1.TriggerImageDigest, 8*time.Minute)
	t.Logf("the push of %s started %s in %s; it ran to %s", digestC, run.Name, time.Since(start).Round(time.Second), run.Status.Phase)
	if run.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("run %s after the push: %s, want Succeeded\n%s", run.Name, run.Status.Phase, conditions(run.Status.Conditions))
	}
	if s, err = l.getSchedule(c, ns, gitopsScheduleName); err != nil {
		t.Fatal(err)
	}
	if len(s.Status.ImageDigests) != 1 || s.Status.ImageDigests[0].Digest != digestC {
		t.Errorf("the schedule records digests %+v, want %s's %s", s.Status.ImageDigests, gitopsImage("0.1.0-b"), digestC)
	}
	// Suspended, it starts nothing more while the namespace goes.
	_, _ = l.dyn.Resource(scheduleGVR).Namespace(ns).Patch(context.Background(), gitopsScheduleName, types.MergePatchType,
		[]byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{})
}

func (l *lab) getSchedule(c context.Context, ns, name string) (*benchv1.BenchmarkSchedule, error) {
	u, err := l.dyn.Resource(scheduleGVR).Namespace(ns).Get(c, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	s := &benchv1.BenchmarkSchedule{}
	return s, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, s)
}

// scheduledRuns names the runs the schedule created, with their triggers.
func (l *lab) scheduledRuns(t *testing.T, ns string) map[string]string {
	runs, err := l.dyn.Resource(runGVR).Namespace(ns).List(ctx(t, time.Minute), metav1.ListOptions{LabelSelector: benchv1.LabelSchedule + "=" + gitopsScheduleName})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range runs.Items {
		out[r.GetName()] = r.GetAnnotations()[benchv1.AnnotationTrigger]
	}
	return out
}

// waitTriggeredRun waits for the schedule's run started by trigger, then for its end.
func (l *lab) waitTriggeredRun(t *testing.T, ns, trigger string, limit time.Duration) *benchv1.BenchmarkRun {
	t.Helper()
	var run *benchv1.BenchmarkRun
	err := wait.PollUntilContextTimeout(ctx(t, limit+time.Minute), 3*time.Second, limit, true, func(c context.Context) (bool, error) {
		if run == nil {
			for name, tr := range l.scheduledRuns(t, ns) {
				if tr == trigger {
					run = &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
				}
			}
			if run == nil {
				return false, nil
			}
		}
		r, err := l.getRun(c, ns, run.Name)
		if err != nil {
			return false, nil
		}
		run = r
		return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed, nil
	})
	if err != nil {
		t.Fatalf("no run started by %s that ended within %s (runs %v; last %v): %v\n%s", trigger, limit, l.scheduledRuns(t, ns), runSummary(run), err, l.fluxDiagnostics(t))
	}
	return run
}

// commit changes one file of the lab's Git repository and has Flux fetch the new revision:
// the Git server commits the ConfigMap's files when it starts, so its pod is replaced, and
// the GitRepository is asked again until its revision moves.
func (l *lab) commit(t *testing.T, path string, u *unstructured.Unstructured) {
	c := ctx(t, 6*time.Minute)
	doc, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := l.dyn.Resource(gitRepositoryGVR).Namespace(fluxNamespace).Get(c, "benchmarks", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := unstructured.NestedString(repo.Object, "status", "artifact", "revision")
	cms := l.client.CoreV1().ConfigMaps(fluxNamespace)
	cm, err := cms.Get(c, "benchmarks", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[strings.ReplaceAll(path, "/", "_")] = string(doc)
	if _, err := cms.Update(c, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The Git server commits its folder when it starts: a new pod mounts the changed files.
	if err := l.client.CoreV1().Pods(fluxNamespace).DeleteCollection(c, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=gitserver"}); err != nil {
		t.Fatal(err)
	}
	var now string
	err = wait.PollUntilContextTimeout(c, 10*time.Second, 5*time.Minute, true, func(c context.Context) (bool, error) {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":%q}}}`, time.Now().Format(time.RFC3339Nano))
		repo, err := l.dyn.Resource(gitRepositoryGVR).Namespace(fluxNamespace).Patch(c, "benchmarks", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		if err != nil {
			return false, nil
		}
		now, _, _ = unstructured.NestedString(repo.Object, "status", "artifact", "revision")
		return now != "" && now != before, nil
	})
	if err != nil {
		t.Fatalf("Flux still serves revision %s after the commit: %v\n%s", before, err, l.fluxDiagnostics(t))
	}
	t.Logf("commit of %s: revision %s -> %s", path, before, now)
}
