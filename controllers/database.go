package controllers

import (
	"context"
	"fmt"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=clusters,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=poolers,verbs=get;list;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;create;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;delete

// database creates the CloudNativePG Cluster (bootstrapped from targets/schema.sql) and,
// with connectVia: Pooler, its Pooler, then waits until they serve. Targets read the
// credentials from the <cluster>-app Secret by reference: the operator never reads it.
func (r *BenchmarkRunReconciler) database(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	if run.Spec.Database == nil {
		setCondition(run, benchv1.ConditionDatabaseReady, metav1.ConditionTrue, benchv1.ReasonNotRequested, "the run has no database")
		return ctrl.Result{}, nil
	}
	if meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionDatabaseReady) {
		return ctrl.Result{}, nil // checked once; a database that fails later fails the trials
	}
	setPhase(run, benchv1.PhaseProvisioning)
	objs := []client.Object{specs.SchemaConfigMap(run, r.Config), specs.DatabaseCluster(run, r.Config)}
	direct := run.Spec.Database.ConnectVia == benchv1.ConnectViaDirect
	if !direct {
		objs = append(objs, specs.DatabasePooler(run))
	}
	if err := r.createAll(ctx, s, objs...); err != nil {
		return r.createFailed(s, benchv1.ConditionDatabaseReady, err)
	}

	waiting, err := r.databaseWaiting(ctx, run, direct)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting != "" {
		if s.now.Sub(run.Status.StartedAt.Time) > r.Timeouts.Database {
			return r.fail(s, benchv1.ConditionDatabaseReady, benchv1.ReasonDatabaseTimeout,
				fmt.Sprintf("the database did not become ready within %v: %s", r.Timeouts.Database, waiting))
		}
		setCondition(run, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, benchv1.ReasonProvisioning, waiting)
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonDatabaseHealthy, "Provision", "PostgreSQL %s is ready", specs.ClusterName(run))
	setCondition(run, benchv1.ConditionDatabaseReady, metav1.ConditionTrue, benchv1.ReasonDatabaseHealthy,
		fmt.Sprintf("PostgreSQL %s is healthy; targets connect to %s", specs.ClusterName(run), specs.DatabaseHost(run)))
	return ctrl.Result{}, nil
}

// databaseWaiting says what the database still waits for, in CloudNativePG's own words,
// or "" when the Cluster is healthy and the Pooler's pods are available.
func (r *BenchmarkRunReconciler) databaseWaiting(ctx context.Context, run *benchv1.BenchmarkRun, direct bool) (string, error) {
	cluster := &cnpgv1.Cluster{}
	err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: specs.ClusterName(run)}, cluster)
	if apierrors.IsNotFound(err) {
		// Just created, not in the informer cache yet: waiting, never "healthy".
		return fmt.Sprintf("CloudNativePG Cluster %s: not observed yet", specs.ClusterName(run)), nil
	}
	if err != nil {
		return "", err
	}
	ready := meta.IsStatusConditionTrue(cluster.Status.Conditions, string(cnpgv1.ConditionClusterReady))
	if cluster.Status.Phase != cnpgv1.PhaseHealthy || !ready || cluster.Status.ReadyInstances < cluster.Spec.Instances {
		phase := cluster.Status.Phase
		if phase == "" {
			phase = "not reported yet"
		}
		msg := fmt.Sprintf("CloudNativePG Cluster %s: phase %q, %d/%d instances ready", cluster.Name, phase,
			cluster.Status.ReadyInstances, cluster.Spec.Instances)
		if cluster.Status.PhaseReason != "" {
			msg += " (" + cluster.Status.PhaseReason + ")"
		}
		return msg, nil
	}
	if direct {
		return "", nil
	}
	// CloudNativePG runs PgBouncer as a Deployment named after the Pooler. Without the
	// operator's label it is not in the manager's cache (CacheOptions): read uncached.
	pooler := specs.DatabasePooler(run)
	dep := &appsv1.Deployment{}
	err = r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: pooler.Name}, dep)
	if apierrors.IsNotFound(err) {
		return fmt.Sprintf("Pooler %s: CloudNativePG has not created its Deployment yet", pooler.Name), nil
	}
	if err != nil {
		return "", err
	}
	if dep.Status.AvailableReplicas < *pooler.Spec.Instances {
		return fmt.Sprintf("Pooler %s: %d/%d PgBouncer pods available", pooler.Name, dep.Status.AvailableReplicas, *pooler.Spec.Instances), nil
	}
	return "", nil
}

// createAll creates what is missing; existing objects are left as they are (the spec is
// immutable once started, so they cannot be stale). The first creation starts the run.
func (r *BenchmarkRunReconciler) createAll(ctx context.Context, s *scope, objs ...client.Object) error {
	for _, o := range objs {
		if s.run.Status.StartedAt == nil {
			s.run.Status.StartedAt = &metav1.Time{Time: s.now}
		}
		err := r.Create(ctx, o)
		if apierrors.IsAlreadyExists(err) {
			err = r.checkOwned(ctx, s.run, o) // ours only if it carries this run's owner reference
		} else if err != nil {
			err = createError(o, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
