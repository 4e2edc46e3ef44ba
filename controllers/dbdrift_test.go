package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// instancePod is a PostgreSQL pod as CloudNativePG labels it.
func instancePod(run *benchv1.BenchmarkRun, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: run.Namespace,
			Labels: map[string]string{cnpgClusterLabel: specs.ClusterName(run), "cnpg.io/podRole": "instance"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "gauntlet.local/postgresql:15"}}},
	}
}

// The database going away while a trial runs fails the trial and the run with
// DatabaseChanged, naming what changed: CloudNativePG's Cluster no longer healthy, or its
// primary pod replaced (seen even when the Cluster is healthy again by the next pass).
func TestDatabaseDriftFailsTheTrial(t *testing.T) {
	testenv.Long(t)
	cases := []struct {
		name   string
		change func(ctx context.Context, run *benchv1.BenchmarkRun) error
		says   []string
	}{
		{"primary-replaced", func(ctx context.Context, run *benchv1.BenchmarkRun) error {
			return env.Client.Create(ctx, instancePod(run, specs.ClusterName(run)+"-1"))
		}, []string{"pod " + "%CLUSTER%-1", "was created at", "after the trial started"}},
		{"cluster-unhealthy", func(ctx context.Context, run *benchv1.BenchmarkRun) error {
			fakes.mu.Lock()
			fakes.dbNever[specs.ClusterName(run)] = true
			fakes.mu.Unlock()
			cl := &cnpgv1.Cluster{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: specs.ClusterName(run)}, cl); err != nil {
				return err
			}
			cl.Status.Phase, cl.Status.PhaseReason, cl.Status.ReadyInstances = "Failing over", "primary pod gone", 0
			return env.Client.Status().Update(ctx, cl)
		}, []string{"not ready during the trial", "CloudNativePG Cluster %CLUSTER%", "0/1 instances ready"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			run := pingRun("dbdrift-" + c.name)
			run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaPooler}
			startHeldTrial(t, run)
			time.Sleep(1100 * time.Millisecond) // timestamps have whole seconds: after the TestRun's
			if err := c.change(ctx, run); err != nil {
				t.Fatal(err)
			}
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
			cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
			if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != benchv1.ReasonDatabaseDrift {
				t.Fatalf("phase %s, Complete %+v", got.Status.Phase, cond)
			}
			for _, want := range append([]string{"trial go.ping.100.r1 failed"}, c.says...) {
				want = strings.ReplaceAll(want, "%CLUSTER%", specs.ClusterName(run))
				if !strings.Contains(cond.Message, want) {
					t.Errorf("message %q does not say %q", cond.Message, want)
				}
			}
			t.Log(cond.Message)
		})
	}
}

// Pods of the database that were there before the trial, started before it, and an
// initdb job's pod are no change: the run succeeds.
func TestDatabasePodsFromBeforeTheTrialAreNoDrift(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := pingRun("dbdrift-none")
	run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaDirect}
	for _, p := range []*corev1.Pod{instancePod(run, specs.ClusterName(run)+"-1"), instancePod(run, specs.ClusterName(run)+"-1-initdb-x")} {
		if strings.Contains(p.Name, "initdb") {
			p.Labels = map[string]string{cnpgClusterLabel: specs.ClusterName(run), cnpgJobRoleLabel: "initdb"}
		}
		if err := env.Client.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "postgres", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(time.Now().Add(-time.Minute))}}}}
		if err := env.Client.Status().Update(ctx, p); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, p) })
	}
	time.Sleep(1100 * time.Millisecond) // creation timestamps have whole seconds
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s: %+v", got.Status.Phase, got.Status.Conditions)
	}
}
