package v1alpha1

// What a run measured on (status.environment): comparisons across runs are judged
// against it.

// Environment fingerprints the machines and software a run measured on.
type Environment struct {
	// Mode is Cluster or Local.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Mode string `json:"mode,omitempty"`
	// KubernetesVersion is the API server's version (empty in the local mode).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Nodes the targets and the load generator ran on (in the local mode, this machine).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Nodes []NodeFingerprint `json:"nodes,omitempty"`
	// Images are the targets' images with the digests that ran, and the runtime each
	// target's preset names.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Images []ImageFingerprint `json:"images,omitempty"`
}

// NodeFingerprint is one machine of a run.
type NodeFingerprint struct {
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Role: Targets, Generator or Both.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Role string `json:"role,omitempty"`
	// InstanceType is the node.kubernetes.io/instance-type label (empty locally).
	// +optional
	// +kubebuilder:validation:MaxLength=128
	InstanceType string `json:"instanceType,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Architecture string `json:"architecture,omitempty"`
	// CPUModel is /proc/cpuinfo's model name locally; in a cluster, node feature
	// discovery's CPU model label when the node has one.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	CPUModel string `json:"cpuModel,omitempty"`
	// CPUs is the machine's logical CPU count (the node's capacity).
	// +optional
	CPUs int32 `json:"cpus,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Kernel string `json:"kernel,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=128
	OSImage string `json:"osImage,omitempty"`
	// ContainerRuntime such as containerd://2.1.4 (empty locally).
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ContainerRuntime string `json:"containerRuntime,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Kubelet string `json:"kubelet,omitempty"`
}

// ImageFingerprint is one target's software.
type ImageFingerprint struct {
	// +kubebuilder:validation:MaxLength=40
	Target string `json:"target"`
	// Image as deployed; Digest the image ID the container runtime reported (empty
	// locally, where the preset runs from source).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Digest string `json:"digest,omitempty"`
	// Runtime is the preset's runtime and version, such as "go 1.26.8".
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Runtime string `json:"runtime,omitempty"`
}
