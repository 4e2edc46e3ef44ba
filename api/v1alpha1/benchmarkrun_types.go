package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkRunSpec is what to compare (targets), where (node pools), against what (database,
// scenarios) and how hard (load). It is immutable once the run has started.
//
// References are checked in the schema, so a bad spec is refused by the API server itself:
// +kubebuilder:validation:XValidation:rule="!has(self.targets) || self.targets.all(t, !has(t.nodePool) || (has(self.nodePools) && self.nodePools.exists(p, p.name == t.nodePool)))",message="every targets[].nodePool must name an entry of spec.nodePools",fieldPath=".targets"
// +kubebuilder:validation:XValidation:rule="!has(self.loadGenerator) || !has(self.loadGenerator.nodePool) || (has(self.nodePools) && self.nodePools.exists(p, p.name == self.loadGenerator.nodePool))",message="loadGenerator.nodePool must name an entry of spec.nodePools",fieldPath=".loadGenerator.nodePool"
// +kubebuilder:validation:XValidation:rule="size(self.scenarios) * (size(self.targets) * ((has(self.load.model) && self.load.model == 'Closed' ? (has(self.load.connections) ? size(self.load.connections) : 0) : (has(self.load.rates) ? size(self.load.rates) : 0)) * (has(self.load.repetitions) ? self.load.repetitions : 3) + (has(self.load.search) ? (has(self.load.search.maxSteps) ? self.load.search.maxSteps : 16) + 2 * (has(self.load.repetitions) ? self.load.repetitions : 3) : 0)) + (has(self.load.model) && self.load.model == 'Closed' ? (has(self.load.connections) ? size(self.load.connections) : 0) : (has(self.load.rates) ? size(self.load.rates) : 0))) <= 180",message="too many trials: scenarios x (targets x (load points x repetitions + search.maxSteps + 2 x repetitions when searching) + one generator-floor trial per load point) must be at most 180, so the run's status fits one object; split the comparison into several runs",fieldPath=".load.repetitions"
// +kubebuilder:validation:XValidation:rule="!has(self.targets) || self.targets.all(t, !has(t.baselineTarget) || (t.baselineTarget != t.name && self.targets.exists(u, u.name == t.baselineTarget && has(u.nodePool) == has(t.nodePool) && (!has(u.nodePool) || u.nodePool == t.nodePool))))",message="every targets[].baselineTarget must name another entry of spec.targets on the same nodePool: a pair is measured on the same machines",fieldPath=".targets"
// +kubebuilder:validation:XValidation:rule="!has(self.load.pairing) || self.load.pairing != 'Duet' || (has(self.targets) && self.targets.exists(t, has(t.baselineTarget)))",message="load.pairing Duet runs the arms of a same-run pair at the same time: set baselineTarget on a target",fieldPath=".load.pairing"
// +kubebuilder:validation:XValidation:rule="!has(self.baseline) || has(self.baseline.run) || (has(self.targets) && self.targets.exists(t, has(t.baselineTarget)))",message="spec.baseline compares with nothing: set baseline.run, or baselineTarget on a target",fieldPath=".baseline"
// +kubebuilder:validation:XValidation:rule="(!has(self.baseline) && !(has(self.targets) && self.targets.exists(t, has(t.baselineTarget)))) || (has(self.load.repetitions) ? self.load.repetitions : 3) >= 4",message="a comparison (spec.baseline or a targets[].baselineTarget) needs load.repetitions of at least 4 (5 or more recommended): with 3 a side no outcome is significant at alpha 0.05, so every verdict would be Inconclusive",fieldPath=".load.repetitions"
// +kubebuilder:validation:XValidation:rule="has(self.database) || !self.scenarios.exists(s, (has(s.workload) && s.workload in ['db-ping', 'db-time', 'db-document', 'db-documents']) || (has(s.requests) && s.requests.exists(r, r.path.startsWith('/api/db/'))))",message="a scenario reads the database (a db-* workload or an /api/db/ path) but spec.database is not set",fieldPath=".database"
// +kubebuilder:validation:XValidation:rule="!has(self.loadGenerator) || !has(self.loadGenerator.sizing) || self.loadGenerator.sizing != 'Auto' || !has(self.load.model) || self.load.model == 'Open'",message="loadGenerator.sizing Auto sizes runners from the rate: it needs load.model Open",fieldPath=".loadGenerator.sizing"
//
// Sizes are bounded across the run, so the largest run the API accepts stays small in the
// manager's cache, which holds every tenant's runs in one memory limit:
// +kubebuilder:validation:XValidation:rule="self.targets.map(t, has(t.env) ? t.env.map(e, size(e.name) + (has(e.value) ? size(e.value) : 0)).sum() : 0).sum() <= 32768",message="targets[].env: names and values across the run's targets may total at most 32768 bytes (32 KiB)",fieldPath=".targets"
// +kubebuilder:validation:XValidation:rule="self.scenarios.map(s, has(s.requests) ? size(s.requests) : 0).sum() <= 256",message="scenarios[].requests: the run's scenarios may hold at most 256 requests together",fieldPath=".scenarios"
// +kubebuilder:validation:XValidation:rule="!has(self.nodePools) || self.nodePools.map(p, (has(p.nodeSelector) ? size(p.nodeSelector) : 0) + (has(p.tolerations) ? size(p.tolerations) : 0)).sum() <= 64",message="nodePools: selector entries and tolerations across the run's pools may number at most 64 together",fieldPath=".nodePools"
// +kubebuilder:validation:XValidation:rule="self.scenarios.map(s, has(s.requests) ? s.requests.map(r, size(r.path) + (has(r.body) ? size(r.body) : 0)).sum() : 0).sum() <= 32768",message="scenarios[].requests: paths and bodies across the run's scenarios may total at most 32768 bytes (32 KiB)",fieldPath=".scenarios"
type BenchmarkRunSpec struct {
	// Targets are the runtimes compared, measured one at a time.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Targets []Target `json:"targets"`

	// NodePools are the dedicated node groups targets and load generators run on,
	// for example c7g (arm64) against AMD (amd64). Their selector entries and tolerations
	// number at most 64 together: a few pools of a few labels and taints each is the use.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	NodePools []NodePool `json:"nodePools,omitempty"`

	// LoadGenerator places and sizes the k6 runners.
	// +optional
	LoadGenerator LoadGenerator `json:"loadGenerator,omitempty"`

	// Database, when set, provisions PostgreSQL with a PgBouncer pooler for the targets.
	// +optional
	Database *Database `json:"database,omitempty"`

	// Scenarios are the workloads every target is measured on.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Scenarios []Scenario `json:"scenarios"`

	// Load is the shape of the load: model, load points, durations, repetitions.
	Load Load `json:"load"`

	// SLO, when set, gives every result row a verdict.
	// +optional
	SLO *SLO `json:"slo,omitempty"`

	// Baseline, when set, compares every result row with the same row of an earlier run
	// and sets the Regressed condition.
	// +optional
	Baseline *Baseline `json:"baseline,omitempty"`

	// Cleanup says what happens to the objects a run created once it finishes.
	// +optional
	// +kubebuilder:default={policy: OnSuccess}
	Cleanup Cleanup `json:"cleanup,omitempty"`

	// ImagePullSecrets name Secrets of type kubernetes.io/dockerconfigjson in the run's
	// namespace, the credentials of private registries. They are given to every pod the
	// operator creates for the run: the targets, the null responder, the k6 runners, their
	// initializer and starter, and CloudNativePG's instances and PgBouncer pods. Before it
	// creates anything the operator checks that each exists and is of type
	// kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg; otherwise the run fails
	// with Accepted=False, reason ImagePullSecretInvalid. A BenchmarkSchedule's
	// image-digest trigger reads the same Secrets to ask the registry for the template's
	// digests. The local mode pulls no images and does not use them.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	ImagePullSecrets []ImagePullSecret `json:"imagePullSecrets,omitempty"`
}

// Cleanup policy of the objects a run created (targets, database, load generators).
type Cleanup struct {
	// Policy: Always deletes them when the run finishes, OnSuccess only when it succeeded
	// (a failed run keeps them for inspection), Never keeps them.
	// +kubebuilder:validation:Enum=Always;OnSuccess;Never
	// +kubebuilder:default=OnSuccess
	// +optional
	Policy string `json:"policy,omitempty"`

	// TTLSecondsAfterFinished deletes the BenchmarkRun itself this long after it finished.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=31536000
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// BenchmarkRun runs web-runtime benchmarks and records the results in its status.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=br;bench,categories=gauntlet
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`
// +kubebuilder:printcolumn:name="Targets",type=string,JSONPath=`.status.targetNames`,priority=1
// +kubebuilder:printcolumn:name="Result",type=string,JSONPath=`.status.summary`
// +kubebuilder:printcolumn:name="Capacity",type=string,JSONPath=`.status.capacity`,priority=1
// +kubebuilder:printcolumn:name="Regressed",type=string,JSONPath=`.status.conditions[?(@.type=="Regressed")].status`
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.status.verdict`,priority=1
// +kubebuilder:printcolumn:name="ETA",type=string,JSONPath=`.status.estimatedFinishAt`,priority=1
// +kubebuilder:printcolumn:name="Headline",type=string,JSONPath=`.status.headline`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.startedAt) || self.spec == oldSelf.spec",message="spec is immutable once the run has started (status.startedAt is set); create a new BenchmarkRun instead",fieldPath=".spec"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.baseline) || !has(self.spec.baseline.run) || self.spec.baseline.run != self.metadata.name",message="spec.baseline.run names this run itself; name an earlier run",fieldPath=".spec.baseline.run"
type BenchmarkRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BenchmarkRunSpec `json:"spec"`

	// A run the operator has not written yet reads observedGeneration 0 (the API server's
	// default): kstatus, Flux's health check, reads a run without status as Current, and Flux
	// checks right after it applies, before the operator's first pass.

	// +kubebuilder:default={observedGeneration: 0}
	Status BenchmarkRunStatus `json:"status,omitempty"`
}

// BenchmarkRunList is a list of BenchmarkRuns.
// +kubebuilder:object:root=true
type BenchmarkRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkRun `json:"items"`
}

func init() {
	SchemeBuilder.Register(&BenchmarkRun{}, &BenchmarkRunList{})
}
