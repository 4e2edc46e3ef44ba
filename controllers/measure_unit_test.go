package controllers

import (
	"regexp"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// podName is the name the API server gives a pod from generateName base: the base cut to
// 58 characters, then 5 random ones.
func podName(base string) string { return base[:min(len(base), 58)] + "x7k2q" }

// The target's and runners' pod names match their trial's regexes even when a long run name
// makes the API server truncate them (seed 001's transaction document in the lab: CPU was
// not read), and nothing else in the namespace does.
func TestTrialQueryMatchesTruncatedPodNames(t *testing.T) {
	for _, name := range []string{"short", "seed-001-pgbouncer-transaction", "a-run-name-of-the-longest-kind-the-api-allows-x"} {
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "apostol"}, {Name: "go"}}}}
		now := metav1.Now()
		trial := &benchv1.Trial{Target: "apostol", TestRun: specs.TrialName(run, "apostol.db-ping.100.r1"), MeasureStart: &now, MeasureEnd: &now}
		q := trialQuery(run, trial)
		target, runner := regexp.MustCompile("^(?:"+q.PodRegex+")$"), regexp.MustCompile("^(?:"+q.RunnerPodRegex+")$")
		dep, other := specs.TargetName(run, "apostol"), specs.TargetName(run, "go")
		for _, pod := range []string{podName(dep + "-7b69db4d68-"), podName(dep + "-5d8f7c9b6d-")} {
			if !target.MatchString(pod) {
				t.Errorf("%s: target pod %s (%d chars) does not match %s", name, pod, len(pod), q.PodRegex)
			}
		}
		if p := podName(other + "-7b69db4d68-"); target.MatchString(p) {
			t.Errorf("%s: another target's pod %s matches %s", name, p, q.PodRegex)
		}
		for _, pod := range []string{podName(trial.TestRun + "-1-"), podName(trial.TestRun + "-12-")} {
			if !runner.MatchString(pod) {
				t.Errorf("%s: runner pod %s does not match %s", name, pod, q.RunnerPodRegex)
			}
		}
		for _, pod := range []string{podName(trial.TestRun + "-initializer-"), podName(trial.TestRun + "-starter-")} {
			if runner.MatchString(pod) {
				t.Errorf("%s: k6-operator's %s matches the runners' %s", name, pod, q.RunnerPodRegex)
			}
		}
	}
}
