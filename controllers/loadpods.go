package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// Roles of the pods k6-operator makes for a TestRun: its initializer Job (<name>-initializer,
// k6 archive and inspect), one runner Job per runner (<name>-<n>, labelled runner=true) and
// its starter Job (<name>-starter, curl against the runners once all of them run). A trial
// waits on whichever of them is not running, so the operator names it.
const (
	roleInitializer = "initializer"
	roleRunner      = "runner"
	roleStarter     = "starter"
	roleK6          = "k6" // a pod with k6-operator's labels and none of the names above
)

// Labels the Job controller puts on a Job's pods (job-name before Kubernetes 1.27).
var jobNameLabels = []string{"batch.kubernetes.io/job-name", "job-name"}

// loadPods lists every pod k6-operator made for a TestRun (its labels app=k6, k6_cr=<name>
// on all of them), from the API server: the cache holds no pods.
func (r *BenchmarkRunReconciler) loadPods(ctx context.Context, run *benchv1.BenchmarkRun, testRun string) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace),
		client.MatchingLabels{"app": "k6", "k6_cr": testRun}); err != nil {
		return nil, fmt.Errorf("listing the pods of TestRun %s: %w", testRun, err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	return pods.Items, nil
}

// k6PodRole says what a pod of TestRun testRun does: by the runner label, else by its Job's
// name, else by its own name (generated from the Job's).
func k6PodRole(testRun string, p *corev1.Pod) string {
	if p.Labels["runner"] == "true" {
		return roleRunner
	}
	job := ""
	for _, l := range jobNameLabels {
		if v := p.Labels[l]; v != "" {
			job = v
			break
		}
	}
	for _, role := range []string{roleStarter, roleInitializer} {
		if job == testRun+"-"+role || job == "" && strings.HasPrefix(p.Name, testRun+"-"+role+"-") {
			return role
		}
	}
	return roleK6
}

// unschedulable is when the scheduler first refused the pod and in its words
// ("Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."); zero when it did not.
func unschedulable(p *corev1.Pod) (since time.Time, why string) {
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable {
			continue
		}
		since = c.LastTransitionTime.Time
		if since.IsZero() {
			since = p.CreationTimestamp.Time
		}
		return since, strings.TrimSpace(c.Reason + ": " + c.Message)
	}
	return time.Time{}, ""
}

// stuckPod is the pod of a TestRun the scheduler has refused the longest: who names it
// ("starter pod <name>"), why in the scheduler's words, since when. who is "" when the
// scheduler refuses none. A pod being deleted no longer holds the trial up.
func stuckPod(testRun string, pods []corev1.Pod) (who, why string, since time.Time) {
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if at, w := unschedulable(p); w != "" && (who == "" || at.Before(since)) {
			who, why, since = k6PodRole(testRun, p)+" pod "+p.Name, w, at
		}
	}
	return who, why, since
}

// runnerFailure says why a runner pod failed, or "" while it runs or when it exited 0:
// k6's exit code (99: thresholds crossed), the kernel's OOM kill with the memory limit it
// hit, or the kubelet's verdict on the pod (Evicted) when no container says more.
func runnerFailure(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		term := c.State.Terminated
		if term == nil || term.ExitCode == 0 && term.Reason != "OOMKilled" {
			continue
		}
		switch {
		case term.Reason == "OOMKilled":
			limit := ""
			for _, spec := range p.Spec.Containers {
				if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; spec.Name == c.Name && ok {
					limit = ", memory limit " + q.String()
				}
			}
			return fmt.Sprintf("k6 runner pod %s was OOMKilled (exit code %d%s): give the load generator more memory (spec.loadGenerator.resources.memory)",
				p.Name, term.ExitCode, limit)
		case term.ExitCode == thresholdsExitCode:
			return fmt.Sprintf("k6 thresholds were crossed in runner pod %s (exit code 99)", p.Name)
		default:
			msg := fmt.Sprintf("k6 runner pod %s exited with code %d", p.Name, term.ExitCode)
			if term.Reason != "" {
				msg += " (" + term.Reason + ")"
			}
			if p.Status.Reason != "" { // the kubelet's verdict on the pod: Evicted, NodeLost
				msg += "; the pod failed" + podFailed(p)
			}
			return msg
		}
	}
	if p.Status.Phase == corev1.PodFailed {
		return "k6 runner pod " + p.Name + " failed" + podFailed(p)
	}
	return ""
}

// podFailed is the kubelet's verdict on a failed pod as ": Evicted: The node was low on
// resource: memory.", or "" when it gave none.
func podFailed(p *corev1.Pod) string {
	why := strings.TrimSpace(strings.Trim(p.Status.Reason+": "+p.Status.Message, ": "))
	if why == "" {
		return ""
	}
	return ": " + why
}

// runnersFailed says why a TestRun's runners cannot finish their load, or "": a runner that
// failed (runnerFailure), or, once k6-operator has started them (stage started or stopped:
// every runner ran), one that is gone or being deleted (its node lost, the pod killed).
func runnersFailed(testRun, stage string, want int, pods []corev1.Pod) string {
	var failures, lost []string
	found := 0
	for i := range pods {
		p := &pods[i]
		if k6PodRole(testRun, p) != roleRunner {
			continue
		}
		found++
		if why := runnerFailure(p); why != "" {
			failures = append(failures, why)
		} else if p.DeletionTimestamp != nil && (stage == specs.StageStarted || stage == specs.StageStopped) {
			lost = append(lost, p.Name)
		}
	}
	if len(failures) > 0 {
		return strings.Join(failures, "; ")
	}
	if stage != specs.StageStarted && stage != specs.StageStopped {
		return ""
	}
	switch {
	case len(lost) > 0:
		return fmt.Sprintf("k6 runner pod %s was deleted while TestRun %s loaded the target (its node lost, or the pod evicted or killed)",
			strings.Join(lost, ", "), testRun)
	case found < want:
		return fmt.Sprintf("%d of TestRun %s's %d k6 runner pods are gone while it loaded the target (their node lost, or the pods evicted or killed)",
			want-found, testRun, want)
	}
	return ""
}

// podsState describes a TestRun's pods for a deadline message: how many runners were
// found and have terminated, and why each other pod waits or failed, naming its role
// ("starter pod <name>: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.").
func podsState(testRun string, want int, pods []corev1.Pod) string {
	runners, terminated := 0, 0
	var notes []string
	for i := range pods {
		p := &pods[i]
		role := k6PodRole(testRun, p)
		if role == roleRunner {
			runners++
			if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Terminated != nil {
				terminated++
				continue
			}
		}
		switch {
		case p.DeletionTimestamp != nil:
			notes = append(notes, role+" pod "+p.Name+": being deleted")
		case podWaiting(p) != "":
			notes = append(notes, role+" pod "+p.Name+": "+podWaiting(p))
		case p.Status.Phase == corev1.PodFailed:
			notes = append(notes, role+" pod "+p.Name+": failed"+podFailed(p))
		}
	}
	msg := fmt.Sprintf("; runner pods: %d of %d found, %d terminated", runners, want, terminated)
	if len(notes) > 0 {
		msg += "; " + strings.Join(notes[:min(len(notes), 3)], "; ")
	}
	return msg
}
