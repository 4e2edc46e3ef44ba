package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A run's pull secrets are read by name, uncached (a cache would list and watch every
// Secret of the cluster): get, and nothing else. Only the type is looked at.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// pullSecretsUsable says why a Secret of spec.imagePullSecrets cannot be used, or "" when each
// exists in the run's namespace with a pull secret's type: a wrong name would otherwise show
// only as ImagePullBackOff once the run's pods are created. The answer names the field and
// the Secret, never the Secret's content. An error is a read that may succeed on retry.
func (r *BenchmarkRunReconciler) pullSecretsUsable(ctx context.Context, run *benchv1.BenchmarkRun) (string, error) {
	for i, ref := range run.Spec.ImagePullSecrets {
		field := fmt.Sprintf("spec.imagePullSecrets[%d]", i)
		var secret corev1.Secret
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, &secret)
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Sprintf("%s: Secret %s not found in namespace %s", field, ref.Name, run.Namespace), nil
		case apierrors.IsForbidden(err):
			return fmt.Sprintf("%s: the manager may not read Secret %s (its RBAC must grant get on secrets)", field, ref.Name), nil
		case err != nil:
			return "", fmt.Errorf("%s: reading Secret %s: %w", field, ref.Name, err)
		}
		if secret.Type != corev1.SecretTypeDockerConfigJson && secret.Type != corev1.SecretTypeDockercfg {
			return fmt.Sprintf("%s: Secret %s is of type %q, want %s or %s", field, ref.Name, secret.Type,
				corev1.SecretTypeDockerConfigJson, corev1.SecretTypeDockercfg), nil
		}
	}
	return "", nil
}
