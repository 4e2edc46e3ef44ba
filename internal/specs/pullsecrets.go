package specs

import (
	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// PullSecrets is the run's spec.imagePullSecrets as a pod's imagePullSecrets, nil when it
// has none (so a pod spec without them is unchanged). Every pod the run creates gets them:
// the Secrets are the run's, and a pod the kubelet cannot pull for would hold the run at
// provisioning until its deadline.
func PullSecrets(run *benchv1.BenchmarkRun) []corev1.LocalObjectReference {
	if len(run.Spec.ImagePullSecrets) == 0 {
		return nil
	}
	out := make([]corev1.LocalObjectReference, 0, len(run.Spec.ImagePullSecrets))
	for _, s := range run.Spec.ImagePullSecrets {
		out = append(out, corev1.LocalObjectReference{Name: s.Name})
	}
	return out
}

// cnpgPullSecrets is PullSecrets in CloudNativePG's own reference type.
func cnpgPullSecrets(run *benchv1.BenchmarkRun) []cnpgv1.LocalObjectReference {
	if len(run.Spec.ImagePullSecrets) == 0 {
		return nil
	}
	out := make([]cnpgv1.LocalObjectReference, 0, len(run.Spec.ImagePullSecrets))
	for _, s := range run.Spec.ImagePullSecrets {
		out = append(out, cnpgv1.LocalObjectReference{Name: s.Name})
	}
	return out
}
