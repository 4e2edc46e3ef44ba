package v1alpha1

// ImagePullSecret names a Secret in the run's namespace, as a pod's imagePullSecrets entry
// (corev1.LocalObjectReference, whose name is unbounded and unchecked) but with the name
// checked as Kubernetes checks a Secret's: a typo is refused when the run is applied, not
// found as an ImagePullBackOff once the run has started.
type ImagePullSecret struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="must be a Secret's name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (an RFC 1123 subdomain)"
	Name string `json:"name"`
}
