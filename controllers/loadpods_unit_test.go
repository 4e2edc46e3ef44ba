package controllers

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

const podsTestRun = "run-go-ping-100-r1-3f9a1c2b7d"

// k6RunnerPod and jobPod are the pods k6-operator makes for a TestRun, labelled as it and the
// Job controller label them.
func k6RunnerPod(i string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podsTestRun + "-" + i + "-x7k2p",
		Labels: map[string]string{"app": "k6", "k6_cr": podsTestRun, "runner": "true", "job-name": podsTestRun + "-" + i}}}
}

func jobPod(role string, jobLabel bool) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podsTestRun + "-" + role + "-q8m4t",
		Labels: map[string]string{"app": "k6", "k6_cr": podsTestRun}}}
	if jobLabel {
		p.Labels["batch.kubernetes.io/job-name"] = podsTestRun + "-" + role
	}
	return p
}

func refused(p corev1.Pod, at time.Time, msg string) corev1.Pod {
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: msg, LastTransitionTime: metav1.NewTime(at)}}
	return p
}

func exited(p corev1.Pod, code int32, reason string) corev1.Pod {
	p.Status.Phase = corev1.PodSucceeded
	if code != 0 || reason == "OOMKilled" {
		p.Status.Phase = corev1.PodFailed
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "k6",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}}
	return p
}

// Each pod's role comes from k6-operator's runner label, else its Job's name, else its own.
func TestK6PodRole(t *testing.T) {
	cases := []struct {
		pod  corev1.Pod
		want string
	}{
		{k6RunnerPod("1"), roleRunner},
		{jobPod("starter", true), roleStarter},
		{jobPod("initializer", true), roleInitializer},
		{jobPod("starter", false), roleStarter},
		{jobPod("initializer", false), roleInitializer},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podsTestRun + "-stopper-abcde",
			Labels: map[string]string{"app": "k6", "k6_cr": podsTestRun, "job-name": podsTestRun + "-stopper"}}}, roleK6},
	}
	for _, c := range cases {
		if got := k6PodRole(podsTestRun, &c.pod); got != c.want {
			t.Errorf("%s %v: role %q, want %q", c.pod.Name, c.pod.Labels, got, c.want)
		}
	}
}

// The pod refused longest is the one named, with the scheduler's words and since when; a
// pod being deleted, or waiting for another reason, holds nothing up.
func TestStuckPod(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cpu := "0/1 nodes are available: 1 Insufficient cpu."
	running := k6RunnerPod("1")
	running.Status.Phase = corev1.PodRunning
	gated := jobPod("initializer", true)
	gated.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}
	deleting := refused(k6RunnerPod("2"), t0.Add(-time.Hour), cpu)
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}

	who, why, since := stuckPod(podsTestRun, []corev1.Pod{running, gated, deleting, refused(jobPod("starter", true), t0, cpu)})
	if who != "starter pod "+podsTestRun+"-starter-q8m4t" || why != "Unschedulable: "+cpu || !since.Equal(t0) {
		t.Errorf("stuck: %q %q %v", who, why, since)
	}
	who, _, since = stuckPod(podsTestRun, []corev1.Pod{refused(jobPod("starter", true), t0, cpu), refused(k6RunnerPod("3"), t0.Add(-time.Minute), cpu)})
	if who != "runner pod "+podsTestRun+"-3-x7k2p" || !since.Equal(t0.Add(-time.Minute)) {
		t.Errorf("the longest refused: %q since %v, want the runner", who, since)
	}
	if who, _, _ := stuckPod(podsTestRun, []corev1.Pod{running, gated, deleting}); who != "" {
		t.Errorf("nothing refused, yet %q named", who)
	}
	noTime := refused(jobPod("starter", true), time.Time{}, cpu)
	noTime.CreationTimestamp = metav1.NewTime(t0)
	if _, _, since := stuckPod(podsTestRun, []corev1.Pod{noTime}); !since.Equal(t0) {
		t.Errorf("without a transition time: since %v, want the pod's creation", since)
	}
}

// A runner's failure names the pod and the cause in the kubelet's or k6's terms.
func TestRunnerFailure(t *testing.T) {
	oom := exited(k6RunnerPod("1"), 137, "OOMKilled")
	oom.Spec.Containers = []corev1.Container{{Name: "k6", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}}}}
	evicted := k6RunnerPod("1")
	evicted.Status.Phase, evicted.Status.Reason, evicted.Status.Message = corev1.PodFailed, "Evicted", "The node was low on resource: memory."
	evictedKilled := exited(k6RunnerPod("1"), 137, "Error")
	evictedKilled.Status.Reason, evictedKilled.Status.Message = evicted.Status.Reason, evicted.Status.Message
	cases := []struct {
		name string
		pod  corev1.Pod
		want string
	}{
		{"running", k6RunnerPod("1"), ""},
		{"exit 0", exited(k6RunnerPod("1"), 0, "Completed"), ""},
		{"OOM-killed", oom, "k6 runner pod " + podsTestRun + "-1-x7k2p was OOMKilled (exit code 137, memory limit 256Mi)"},
		{"thresholds", exited(k6RunnerPod("1"), 99, "Error"), "k6 thresholds were crossed in runner pod " + podsTestRun + "-1-x7k2p (exit code 99)"},
		{"killed", exited(k6RunnerPod("1"), 137, "Error"), "k6 runner pod " + podsTestRun + "-1-x7k2p exited with code 137 (Error)"},
		{"no reason", exited(k6RunnerPod("1"), 1, ""), "k6 runner pod " + podsTestRun + "-1-x7k2p exited with code 1"},
		{"evicted, its k6 killed", evictedKilled, "k6 runner pod " + podsTestRun + "-1-x7k2p exited with code 137 (Error); the pod failed: Evicted: The node was low"},
		{"evicted", evicted, "k6 runner pod " + podsTestRun + "-1-x7k2p failed: Evicted: The node was low on resource: memory."},
	}
	for _, c := range cases {
		got := runnerFailure(&c.pod)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := runnerFailure(&cases[2].pod); !strings.Contains(got, "spec.loadGenerator.resources.memory") {
		t.Errorf("OOM-killed: %q does not say what to raise", got)
	}
}

// Runners fail the trial when one failed, at any stage, or, once k6-operator started them
// all, when one is gone or being deleted.
func TestRunnersFailed(t *testing.T) {
	deleting := k6RunnerPod("2")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	one, two := k6RunnerPod("1"), k6RunnerPod("2")
	cases := []struct {
		name  string
		stage string
		pods  []corev1.Pod
		want  string
	}{
		{"all running", specs.StageStarted, []corev1.Pod{one, two}, ""},
		{"not all created yet", specs.StageCreated, []corev1.Pod{one}, ""},
		{"one OOM-killed", specs.StageStarted, []corev1.Pod{exited(one, 137, "OOMKilled"), two}, "was OOMKilled"},
		{"one OOM-killed before the start", specs.StageCreated, []corev1.Pod{exited(one, 137, "OOMKilled"), two}, "was OOMKilled"},
		{"one gone", specs.StageStarted, []corev1.Pod{one}, "1 of TestRun " + podsTestRun + "'s 2 k6 runner pods are gone"},
		{"one being deleted", specs.StageStopped, []corev1.Pod{one, deleting}, "k6 runner pod " + podsTestRun + "-2-x7k2p was deleted"},
		{"both done", specs.StageStopped, []corev1.Pod{exited(one, 0, "Completed"), exited(two, 0, "Completed")}, ""},
		{"the starter is no runner", specs.StageStarted, []corev1.Pod{one, jobPod("starter", true)}, "1 of TestRun"},
	}
	for _, c := range cases {
		got := runnersFailed(podsTestRun, c.stage, 2, c.pods)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The deadline message counts the runners and names every pod that waits, by its role.
func TestPodsState(t *testing.T) {
	cpu := "0/1 nodes are available: 1 Insufficient cpu."
	running := k6RunnerPod("1")
	running.Status.Phase = corev1.PodRunning
	got := podsState(podsTestRun, 1, []corev1.Pod{running, refused(jobPod("starter", true), time.Now(), cpu)})
	want := "; runner pods: 1 of 1 found, 0 terminated; starter pod " + podsTestRun + "-starter-q8m4t: Unschedulable: " + cpu
	if got != want {
		t.Errorf("state\n%q, want\n%q", got, want)
	}
	got = podsState(podsTestRun, 2, []corev1.Pod{exited(k6RunnerPod("1"), 0, "Completed"), refused(k6RunnerPod("2"), time.Now(), cpu)})
	if want := "; runner pods: 2 of 2 found, 1 terminated; runner pod " + podsTestRun + "-2-x7k2p: Unschedulable: "; !strings.HasPrefix(got, want) {
		t.Errorf("state %q, want it to begin %q", got, want)
	}
	if got := podsState(podsTestRun, 1, nil); got != "; runner pods: 0 of 1 found, 0 terminated" {
		t.Errorf("no pods: %q", got)
	}
}

// Exit codes are read once every runner is done; any failure is the trial's.
func TestRunnerExitCodes(t *testing.T) {
	one, two := k6RunnerPod("1"), k6RunnerPod("2")
	if _, done := runnerExitCodes(podsTestRun, 2, []corev1.Pod{exited(one, 0, "Completed"), two}); done {
		t.Errorf("done with a runner still running")
	}
	msg, done := runnerExitCodes(podsTestRun, 2, []corev1.Pod{exited(one, 0, "Completed"), exited(two, 99, "Error"), exited(jobPod("starter", true), 0, "Completed")})
	if !done || !strings.Contains(msg, "thresholds were crossed in runner pod "+two.Name) {
		t.Errorf("done %v, %q", done, msg)
	}
	if msg, done := runnerExitCodes(podsTestRun, 1, []corev1.Pod{exited(one, 0, "Completed")}); !done || msg != "" {
		t.Errorf("a clean finish: done %v, %q", done, msg)
	}
}
