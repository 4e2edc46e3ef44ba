package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// CloudNativePG's labels on the pods it runs: every pod of a Cluster (instances and their
// jobs) carries the cluster's, job pods also a job role; PgBouncer pods the Pooler's name.
const (
	cnpgClusterLabel = "cnpg.io/cluster"
	cnpgJobRoleLabel = "cnpg.io/jobRole"
	cnpgPoolerLabel  = "cnpg.io/poolerName"
)

// databaseDrift checks, on every pass of a running trial, that the database the targets
// query stayed up through the trial: the Cluster (and Pooler) still healthy, and no
// PostgreSQL or PgBouncer pod created or restarted since the trial's TestRun was. A
// restart between two passes (CloudNativePG brings a deleted instance back within
// seconds) is still seen through the pods' start times. Errors the targets returned
// meanwhile would measure the failover, not the targets: the trial fails with a message
// naming what changed. It returns "" when nothing did.
func (r *BenchmarkRunReconciler) databaseDrift(ctx context.Context, run *benchv1.BenchmarkRun, since time.Time) (string, error) {
	if run.Spec.Database == nil {
		return "", nil
	}
	direct := run.Spec.Database.ConnectVia == benchv1.ConnectViaDirect
	if waiting, err := r.databaseWaiting(ctx, run, direct); err != nil || waiting != "" {
		if waiting != "" {
			return "the database is not ready during the trial: " + waiting, nil
		}
		return "", err
	}
	selectors := []client.MatchingLabels{{cnpgClusterLabel: specs.ClusterName(run)}}
	if !direct {
		selectors = append(selectors, client.MatchingLabels{cnpgPoolerLabel: specs.PoolerName(run)})
	}
	for _, sel := range selectors {
		pods := &corev1.PodList{}
		if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), sel); err != nil {
			return "", err
		}
		for i := range pods.Items {
			if why := podChangedSince(&pods.Items[i], since); why != "" {
				return fmt.Sprintf("the database changed during the trial: pod %s %s", pods.Items[i].Name, why), nil
			}
		}
	}
	return "", nil
}

// podChangedSince says how a database pod changed after since ("" when it did not): created
// after it (CloudNativePG replaced a deleted instance), or a container started or stopped
// after it (a restart in place). Job pods (initdb) are left out: they ended before any trial.
func podChangedSince(p *corev1.Pod, since time.Time) string {
	if _, job := p.Labels[cnpgJobRoleLabel]; job {
		return ""
	}
	if !p.DeletionTimestamp.IsZero() {
		return "is being deleted"
	}
	if p.CreationTimestamp.After(since) {
		return "was created at " + p.CreationTimestamp.UTC().Format(time.RFC3339) + ", after the trial started"
	}
	for _, c := range p.Status.ContainerStatuses {
		if run := c.State.Running; run != nil && run.StartedAt.After(since) {
			return fmt.Sprintf("restarted: container %s started at %s, after the trial started", c.Name, run.StartedAt.UTC().Format(time.RFC3339))
		}
		if end := c.LastTerminationState.Terminated; end != nil && end.FinishedAt.After(since) {
			return fmt.Sprintf("restarted: container %s stopped at %s (%s)", c.Name, end.FinishedAt.UTC().Format(time.RFC3339), end.Reason)
		}
		if c.State.Running == nil {
			return "has container " + c.Name + " not running"
		}
	}
	return ""
}
