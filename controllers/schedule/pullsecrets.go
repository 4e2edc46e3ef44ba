package schedule

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	kauth "github.com/google/go-containerregistry/pkg/authn/kubernetes"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The digest trigger reads the template's pull secrets, by name, uncached (a cache would
// list and watch every Secret of the cluster): get, and nothing else.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// pullKeychain is the keychain the digest look-ups authenticate with: the template's
// imagePullSecrets, in their order, then the operator's own docker config. A Secret that
// is missing, of another type or not a docker config is an error naming it (and its
// field), never quoting its content.
func (r *BenchmarkScheduleReconciler) pullKeychain(ctx context.Context, s *benchv1.BenchmarkSchedule) (authn.Keychain, error) {
	refs := s.Spec.Template.Spec.ImagePullSecrets
	chain := make([]authn.Keychain, 0, len(refs)+1)
	for i, ref := range refs {
		field := fmt.Sprintf("spec.template.spec.imagePullSecrets[%d]", i)
		var secret corev1.Secret
		if err := r.reader().Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: ref.Name}, &secret); err != nil {
			switch {
			case apierrors.IsNotFound(err):
				return nil, fmt.Errorf("%s: Secret %s not found in namespace %s", field, ref.Name, s.Namespace)
			case apierrors.IsForbidden(err):
				return nil, fmt.Errorf("%s: the manager may not read Secret %s (its RBAC grants get on secrets)", field, ref.Name)
			default:
				return nil, fmt.Errorf("%s: reading Secret %s: %s", field, ref.Name, sanitize(err.Error(), maxEventDetail))
			}
		}
		kc, err := secretKeychain(ctx, &secret)
		if err != nil {
			return nil, fmt.Errorf("%s: Secret %s %s", field, ref.Name, err.Error())
		}
		chain = append(chain, kc)
	}
	return authn.NewMultiKeychain(append(chain, authn.DefaultKeychain)...), nil
}

// secretKeychain is one pull secret's keychain, by go-containerregistry's reading of it
// (the kubelet's). Its errors are this function's own words: a JSON error would quote
// the Secret's bytes into an event.
func secretKeychain(ctx context.Context, secret *corev1.Secret) (authn.Keychain, error) {
	if secret.Type != corev1.SecretTypeDockerConfigJson {
		return nil, fmt.Errorf("is of type %q, want %s", secret.Type, corev1.SecretTypeDockerConfigJson)
	}
	if len(secret.Data[corev1.DockerConfigJsonKey]) == 0 {
		return nil, fmt.Errorf("has no %s", corev1.DockerConfigJsonKey)
	}
	kc, err := kauth.NewFromPullSecrets(ctx, []corev1.Secret{*secret})
	if err != nil {
		return nil, fmt.Errorf("has a %s that is not a docker config (JSON with registries under \"auths\")", corev1.DockerConfigJsonKey)
	}
	return kc, nil
}
