package v1alpha1

// Scenario is a named workload: one from the catalogue or a custom weighted request mix.
// +kubebuilder:validation:XValidation:rule="has(self.workload) != has(self.requests)",message="exactly one of workload or requests must be set"
type Scenario struct {
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Workload from the catalogue (the seeds' workloads; internal/workload lists them).
	// +optional
	// +kubebuilder:validation:Enum=ping;time;db-ping;db-time;smart-home;health;db-document;db-documents;cpu-primes
	Workload string `json:"workload,omitempty"`

	// Requests is a custom mix: each request is picked with probability weight/sum(weights).
	// The run's scenarios hold at most 256 requests together.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Requests []Request `json:"requests,omitempty"`
}

// Request is one entry of a custom request mix.
type Request struct {
	// +optional
	// +kubebuilder:default=GET
	// +kubebuilder:validation:Enum=GET;POST;PUT;PATCH;DELETE
	Method string `json:"method,omitempty"`

	// Path with query, starting with "/"; "{id}" is replaced by a number spread over 1..10000.
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^/[^\s]*$`
	Path string `json:"path"`

	// Body sent as application/json. Paths and bodies total at most 32 KiB across the run's
	// scenarios: a realistic request mix's JSON documents fit, and the manager, which
	// caches every tenant's runs, holds no more per run.
	// +optional
	// +kubebuilder:validation:MaxLength=8192
	Body string `json:"body,omitempty"`

	// Weight of this request in the mix.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	Weight int32 `json:"weight,omitempty"`

	// ExpectStatus is the HTTP status that counts as success.
	// +optional
	// +kubebuilder:default=200
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=599
	ExpectStatus int32 `json:"expectStatus,omitempty"`
}
