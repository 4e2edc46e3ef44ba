package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Target is one runtime under test: a preset from targets/ or an image of your own.
// +kubebuilder:validation:XValidation:rule="has(self.preset) != has(self.image)",message="exactly one of preset or image must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.image) || has(self.port)",message="port is required with image (a preset knows its own port)",fieldPath=".port"
// +kubebuilder:validation:XValidation:rule="!has(self.env) || self.env.map(e, has(e.value) ? size(e.value) : 0).sum() <= 8192",message="env: the values of one target may total at most 8192 bytes (8 KiB)",fieldPath=".env"
type Target struct {
	// Name identifies the target in results; a DNS label.
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Preset is a folder under targets/ that implements targets/CONTRACT.md.
	// +optional
	// +kubebuilder:validation:Enum=cpp-epoll;go-nethttp;nginx;node-connect;node-express;node-fastify;node-nestjs;pypy-flask;pypy-tornado;python-fastapi;python-flask;python-flask-eventlet;python-starlette
	Preset string `json:"preset,omitempty"`

	// BaselineTarget names another target of this run that this one is judged against, row
	// by row, from the same rounds of the same run (interleaved in a random order in each
	// round, on the same node pool): the candidate and its baseline, such as the same preset
	// with a new image or a changed setting. The verdicts land in this target's rows
	// (status.results[].baseline), the Regressed condition and status.verdict. It needs
	// load.repetitions of at least 4 (5 or more recommended).
	// +optional
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	BaselineTarget string `json:"baselineTarget,omitempty"`

	// Image of a bring-your-own target that implements targets/CONTRACT.md.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	Image string `json:"image,omitempty"`

	// Port the image listens on (it also receives it as PORT).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`

	// Workers is the number of worker processes (node:cluster, uvicorn and gunicorn workers,
	// epoll processes, nginx worker_processes) or GOMAXPROCS for Go: seed 001's WORKERS.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	Workers int32 `json:"workers,omitempty"`

	// NodePool names an entry of spec.nodePools; empty means any schedulable node.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	NodePool string `json:"nodePool,omitempty"`

	// Resources of the target's container; requests equal limits (Guaranteed QoS), so CPU
	// is not shared with a noisy neighbour during a measurement.
	// +optional
	Resources Resources `json:"resources,omitempty"`

	// Env adds environment variables to the target (PORT, HOST, WORKERS and DB_* are set by
	// Gauntlet). Its values total at most 8 KiB per target, and names and values at most
	// 32 KiB across the run's targets: room for JAVA_OPTS, NODE_OPTIONS or GODEBUG lines
	// (a few hundred bytes) and a small JSON config, while the manager, which caches every
	// tenant's runs in one memory limit, holds at most that per run.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Env []EnvVar `json:"env,omitempty"`
}

// Resources are both the requests and the limits of a container.
type Resources struct {
	// CPU, for example "2" or "1500m".
	// +optional
	// +kubebuilder:default="1"
	CPU *resource.Quantity `json:"cpu,omitempty"`

	// Memory, for example "1Gi".
	// +optional
	// +kubebuilder:default="1Gi"
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// EnvVar is a plain environment variable.
type EnvVar struct {
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	// +kubebuilder:validation:XValidation:rule="!(self in ['PORT', 'WORKERS', 'DATABASE_URL', 'DB_POOL_MIN', 'DB_POOL_MAX', 'DB_PREPARED', 'HOST'])",message="this variable is set by Gauntlet from the spec (workers, database)"
	Name string `json:"name"`
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value,omitempty"`
}

// NodePool is a dedicated group of nodes, selected by labels and tolerations.
type NodePool struct {
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// NodeSelector picks the pool's nodes, for example kubernetes.io/arch: arm64. Keys and
	// values are bounded as labels' are (317 and 63 characters), so a run stays small in the
	// manager's cache; the operator checks their syntax.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && size(self[k]) <= 63)",message="nodeSelector: keys at most 317 characters (prefix 253, name 63), values at most 63, as labels"
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations let pods onto the pool's tainted nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Tolerations []Toleration `json:"tolerations,omitempty"`

	// HourlyPrice of one node in US dollars, a decimal string such as "0.0725"; enables cost
	// per million requests in the results.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]{1,6})?$`
	HourlyPrice string `json:"hourlyPrice,omitempty"`
}

// Toleration mirrors corev1.Toleration with bounded fields, so the spec stays cheap to
// compare in CEL (the immutability rule compares whole specs).
// +kubebuilder:validation:XValidation:rule="!has(self.operator) || self.operator != 'Exists' || !has(self.value)",message="value must be empty when operator is Exists"
type Toleration struct {
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=Exists;Equal
	Operator string `json:"operator,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Value string `json:"value,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	Effect string `json:"effect,omitempty"`
	// +optional
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// LoadGenerator places and sizes the k6 runners (k6-operator TestRun parallelism).
type LoadGenerator struct {
	// NodePool names an entry of spec.nodePools for the runners, away from the targets.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	NodePool string `json:"nodePool,omitempty"`

	// Parallelism is the number of k6 runner pods sharing the load.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Parallelism int32 `json:"parallelism,omitempty"`

	// Image of k6; empty uses the operator's configured image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// Resources of each runner. With sizing Auto, cpu is the most one runner may have (what
	// fits a node of the runners' pool) and the sizing chooses up to it.
	// +optional
	Resources Resources `json:"resources,omitempty"`

	// Sizing: Fixed runs parallelism runners with resources as given. Auto chooses, for each
	// load point, the number of runners and each one's CPU from k6's CPU per request, so that
	// no runner passes the share of its CPU where k6's own queueing shows in its latencies
	// (README, "Sizing the load generator"); status.loadGeneratorSizing says what was chosen
	// and why. Auto needs the open model (a closed model has no rate to size from).
	// +optional
	// +kubebuilder:validation:Enum=Fixed;Auto
	// +kubebuilder:default=Fixed
	Sizing string `json:"sizing,omitempty"`

	// CostPerRequestMicros replaces the project's measured k6 CPU per request (µs of one CPU)
	// that Auto sizing uses; measure it on the runners' node type with make bench-generator.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	CostPerRequestMicros *int32 `json:"costPerRequestMicros,omitempty"`
}

// Load generator sizing modes.
const (
	SizingFixed = "Fixed"
	SizingAuto  = "Auto"
)
