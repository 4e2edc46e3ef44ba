package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase of a BenchmarkRun.
// +kubebuilder:validation:Enum=Pending;Provisioning;Verifying;Running;Analyzing;Succeeded;Failed
type Phase string

// The phases in the order a run goes through them.
const (
	PhasePending      Phase = "Pending"
	PhaseProvisioning Phase = "Provisioning"
	PhaseVerifying    Phase = "Verifying"
	PhaseRunning      Phase = "Running"
	PhaseAnalyzing    Phase = "Analyzing"
	PhaseSucceeded    Phase = "Succeeded"
	PhaseFailed       Phase = "Failed"
)

// BenchmarkRunStatus is what the run did and measured. Figures are integers with their unit
// in the name (micros, millicores, bytes, ppm): the API carries no floats.
type BenchmarkRunStatus struct {
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Accepted, DependenciesReady, DatabaseReady, TargetsReady, TargetsVerified,
	// Complete, SLOMet, Regressed, and Ready, Reconciling and Stalled for GitOps tools.
	// Messages are cut to MaxConditionMessageLength (1024 bytes).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Progress is trials finished over trials planned, such as "7/24".
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Progress string `json:"progress,omitempty"`

	// TargetNames lists the targets, for the printer column.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	TargetNames string `json:"targetNames,omitempty"`

	// Headline is a one-line result, such as "best p99: go 1.9ms @ 1000/s", or
	// "inconclusive: fastapi's row is GeneratorBound (...)" when an invalid row of the best
	// row's scenario and load point has a lower p99; at most
	// MaxMessageLength (512) bytes.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Headline string `json:"headline,omitempty"`

	// Summary is the headline for the Result column of kubectl get: an inconclusive one
	// without its reason, then at most 64 characters. The headline keeps the whole line.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Summary string `json:"summary,omitempty"`

	// Capacity is the capacity searches' answers, for the printer column, such as
	// "go/ping 480/s, node/ping >=1200/s" (">=": a lower bound).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Capacity string `json:"capacity,omitempty"`

	// StartedAt is when the first object was created; from then on the spec is immutable.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// FinishedAt is when the run reached Succeeded or Failed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`

	// EstimatedFinishAt is when the run should finish, from the trials left and their
	// planned length plus the overheads of a trial; unset once it has finished.
	// +optional
	EstimatedFinishAt *metav1.Time `json:"estimatedFinishAt,omitempty"`

	// Targets is each target's deployment and verification state.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Targets []TargetStatus `json:"targets,omitempty"`

	// Trials, one per target x scenario x load point x repetition, in execution order.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=200
	Trials []Trial `json:"trials,omitempty"`

	// Placement is how the local mode gave CPUs to the load generator and the targets.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// OrderSeed drew the order of the targets in each round of trials (spec.load.orderSeed,
	// or drawn when the run was accepted): setting it as spec.load.orderSeed replays the
	// same order.
	// +optional
	OrderSeed int32 `json:"orderSeed,omitempty"`

	// Verdict is the comparison's answer in one line, for the printer column: the worst
	// row's verdict with its shift and 95% interval, such as "v2 vs v1 ping@400: Slower
	// +5.1% [+3.2, +7.4] (1 Slower, 2 NoChange)". Empty without a comparison.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Verdict string `json:"verdict,omitempty"`

	// Environment is what the run ran on: a comparison across different environments
	// is flagged, not called a regression.
	// +optional
	Environment *Environment `json:"environment,omitempty"`

	// Results, one row per target x scenario x load point, aggregated over repetitions.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=200
	Results []ResultRow `json:"results,omitempty"`

	// Search is each capacity search (spec.load.search), one per target and scenario: its
	// steps and its answer.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Search []CapacitySearch `json:"search,omitempty"`

	// Baseline is the run the rows were compared with (spec.baseline).
	// +optional
	Baseline *BaselineRef `json:"baseline,omitempty"`

	// LoadGeneratorSizing is, per load point, the k6 runners the trials get and why: the
	// spec's parallelism and resources (sizing Fixed) or what Auto sizing chose.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	LoadGeneratorSizing []GeneratorSizing `json:"loadGeneratorSizing,omitempty"`
}

// GeneratorSizing is the k6 runners of one load point.
type GeneratorSizing struct {
	LoadPoint int32 `json:"loadPoint"`
	Runners   int32 `json:"runners"`
	// RunnerCPUMillicores is each runner's CPU request and limit.
	RunnerCPUMillicores int64 `json:"runnerCPUMillicores"`
	// Reason says how the figures were chosen.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// Verification is the outcome of a target's contract checks.
// +kubebuilder:validation:Enum=Pending;Passed;Failed
type Verification string

// Verification outcomes.
const (
	VerificationPending Verification = "Pending"
	VerificationPassed  Verification = "Passed"
	VerificationFailed  Verification = "Failed"
)

// TargetStatus is one target's state: deployed and ready, then verified against the contract.
type TargetStatus struct {
	Name string `json:"name"`
	// Ready is true once the target's Deployment has an available pod.
	// +optional
	Ready bool `json:"ready,omitempty"`
	// +optional
	Verification Verification `json:"verification,omitempty"`
	// FailedChecks are the contract checks the target failed (endpoint: check: detail), the
	// first MaxFailedChecks (10), each cut to MaxFailedCheckLength (256 bytes); a target with
	// any is never timed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=256
	FailedChecks []string `json:"failedChecks,omitempty"`
	// Limits is how the local mode enforced the target's resources: in a cluster the
	// kubelet enforces them, and this is absent.
	// +optional
	Limits *LocalLimits `json:"limits,omitempty"`
}

// LocalLimits are the CPU and memory limits the local mode put on a target's processes, in
// a cgroup of their own, as the kubelet does for a container's limits: the spec's CPU as a
// CFS quota per period, its memory as the cgroup's memory limit. The figures are read back
// from the cgroup.
type LocalLimits struct {
	// Applied is true when every process of the target ran under the limits below.
	Applied bool `json:"applied"`
	// CPUMillicores is the spec's CPU (request and limit).
	// +optional
	CPUMillicores int64 `json:"cpuMillicores,omitempty"`
	// CPUQuotaMicros of CPU time per CPUPeriodMicros (100,000, the kubelet's default).
	// +optional
	CPUQuotaMicros int64 `json:"cpuQuotaMicros,omitempty"`
	// +optional
	CPUPeriodMicros int64 `json:"cpuPeriodMicros,omitempty"`
	// MemoryBytes is the memory limit; past it the kernel kills a process of the target.
	// +optional
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// ThrottledPeriods of PeriodsRun (CFS periods in which the target ran) ended with its
	// quota spent: the target waited ThrottledMicros in all, over the whole run.
	// +optional
	PeriodsRun int64 `json:"periodsRun,omitempty"`
	// +optional
	ThrottledPeriods int64 `json:"throttledPeriods,omitempty"`
	// +optional
	ThrottledMicros int64 `json:"throttledMicros,omitempty"`
	// Cgroup is where: "cgroup v1 <cpu folder> <memory folder>" or "cgroup v2 <folder>".
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Cgroup string `json:"cgroup,omitempty"`
	// Message says what was applied, or why not (not root, no cpu or memory controller,
	// --no-limits).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
}

// TrialPhase is the state of one trial.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Skipped
type TrialPhase string

// Trial phases.
const (
	TrialPending   TrialPhase = "Pending"
	TrialRunning   TrialPhase = "Running"
	TrialSucceeded TrialPhase = "Succeeded"
	TrialFailed    TrialPhase = "Failed"
	TrialSkipped   TrialPhase = "Skipped"
)

// Trial is one measured window of one target under one load point.
type Trial struct {
	// Name is unique within the run and stable across restarts (it names the TestRun).
	Name string `json:"name"`
	// Index is the position in execution order, from 0.
	Index      int32  `json:"index"`
	Target     string `json:"target"`
	Scenario   string `json:"scenario"`
	LoadPoint  int32  `json:"loadPoint"`
	Repetition int32  `json:"repetition"`

	// SearchStep is the step of a capacity search this trial is, from 1 (0: a trial of a
	// fixed load point).
	// +optional
	SearchStep int32 `json:"searchStep,omitempty"`
	// Short marks a search's bracketing or bisecting trial, measured with the search's step
	// windows: its figures judge the step and make no result row.
	// +optional
	Short bool `json:"short,omitempty"`

	// Calibration marks a generator-floor trial: the same plan driven against the null
	// responder instead of a target (Target is "null-responder"), once per scenario and load
	// point. Its figures are the load generator's own; they make no result row.
	// +optional
	Calibration bool `json:"calibration,omitempty"`

	// +optional
	Phase TrialPhase `json:"phase,omitempty"`
	// TestRun is the k6-operator TestRun that drove this trial (empty in the local mode).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	TestRun string `json:"testRun,omitempty"`
	// MeasureStart and MeasureEnd bound the measured window (warmup excluded).
	// +optional
	MeasureStart *metav1.Time `json:"measureStart,omitempty"`
	// +optional
	MeasureEnd *metav1.Time `json:"measureEnd,omitempty"`
	// FinishedAt is when the TestRun was seen finished; Prometheus is read after it, so
	// k6's final push is in.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// Message says why the trial failed or was skipped; at most MaxMessageLength (512) bytes.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
	// +optional
	Result *Measurement `json:"result,omitempty"`
}

// Placement is the CPU sets the local mode pinned the load generator and the targets to
// (sched_setaffinity), as CPU lists such as "0" or "4-7".
type Placement struct {
	// GeneratorCPUs run k6; TargetCPUs run the target under load, the null responder,
	// PostgreSQL and PgBouncer. Empty when nothing was pinned.
	// +optional
	GeneratorCPUs string `json:"generatorCPUs,omitempty"`
	// +optional
	TargetCPUs string `json:"targetCPUs,omitempty"`
	// Shared is true when the two could not be given disjoint CPUs (one CPU, or pinning
	// refused): every row is then flagged SharedCores.
	Shared bool `json:"shared"`
	// Arms are the CPUs each target of a duet's pair ran on (spec.load.pairing Duet), each
	// a share of TargetCPUs the other arms do not use; a pair whose arms outnumber the
	// target side's CPUs is missing here and shares them (Message says so).
	// +optional
	// +listType=map
	// +listMapKey=target
	// +kubebuilder:validation:MaxItems=32
	Arms []ArmCPUs `json:"arms,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
}

// ArmCPUs is the CPUs one arm of a duet ran on.
type ArmCPUs struct {
	// +kubebuilder:validation:MaxLength=63
	Target string `json:"target"`
	// CPUs in the kernel's list format, such as "4-5".
	// +kubebuilder:validation:MaxLength=256
	CPUs string `json:"cpus"`
}

// LatencyStats is a latency distribution over the repetitions: each figure's median and
// spread, and the number of requests it covers.
type LatencyStats struct {
	Requests   Stat `json:"requests"`
	P50Micros  Stat `json:"p50Micros"`
	P90Micros  Stat `json:"p90Micros"`
	P95Micros  Stat `json:"p95Micros"`
	P99Micros  Stat `json:"p99Micros"`
	P999Micros Stat `json:"p999Micros"`
	MaxMicros  Stat `json:"maxMicros"`
	// UncertaintyMicros bounds how far each percentile may sit from the target's own time
	// because of where the capture stamps packets (README, "Where the wire figure is
	// stamped"): both stamps are the loopback device's receive path, so a response's
	// includes its hand-off from the target's transmit path, and two independent captures
	// of the same packets differ by up to this much.
	// +optional
	UncertaintyMicros int64 `json:"uncertaintyMicros,omitempty"`
}

// GeneratorFloor is k6's latency in a calibration trial (the same plan against the null
// responder): one measurement per scenario and load point, so no spread; the full figures
// are the calibration trial's result.
type GeneratorFloor struct {
	P50Micros  int64 `json:"p50Micros"`
	P99Micros  int64 `json:"p99Micros"`
	P999Micros int64 `json:"p999Micros"`
}

// Stat is one figure over the repetitions: median and spread.
type Stat struct {
	Median int64 `json:"median"`
	Min    int64 `json:"min"`
	Max    int64 `json:"max"`
	// CILow and CIHigh bound the 95% confidence interval of the median, with 6 or more
	// repetitions (benchstat's method).
	// +optional
	CILow *int64 `json:"ciLow,omitempty"`
	// +optional
	CIHigh *int64 `json:"ciHigh,omitempty"`
}

// Verdict against the SLO.
// +kubebuilder:validation:Enum=Met;Missed;None
type Verdict string

// Verdicts.
const (
	VerdictMet    Verdict = "Met"
	VerdictMissed Verdict = "Missed"
	VerdictNone   Verdict = "None"
)

// ResultRow is one target x scenario x load point, aggregated over its repetitions.
type ResultRow struct {
	Target    string `json:"target"`
	Scenario  string `json:"scenario"`
	LoadPoint int32  `json:"loadPoint"`
	// Repetitions that succeeded and entered the figures (n).
	Repetitions       int32 `json:"repetitions"`
	AchievedMilliRPS  Stat  `json:"achievedMilliRPS"`
	P50Micros         Stat  `json:"p50Micros"`
	P90Micros         Stat  `json:"p90Micros"`
	P95Micros         Stat  `json:"p95Micros"`
	P99Micros         Stat  `json:"p99Micros"`
	P999Micros        Stat  `json:"p999Micros"`
	MaxMicros         Stat  `json:"maxMicros"`
	ErrorRatePPM      Stat  `json:"errorRatePPM"`
	DroppedIterations Stat  `json:"droppedIterations"`
	// +optional
	CPUMillicores *Stat `json:"cpuMillicores,omitempty"`
	// +optional
	MemoryBytes *Stat `json:"memoryBytes,omitempty"`
	// CostMicroUSDPerMillion is the node pool's hourly price per million requests served at the
	// achieved rate, in millionths of a US dollar.
	// +optional
	CostMicroUSDPerMillion *int64 `json:"costMicroUSDPerMillion,omitempty"`
	// LatencySource says which latency is the row's latency of record, read by the SLO
	// verdict, the headline and the generator-noise check: Wire when every repetition has a
	// complete wire capture, otherwise Generator (k6's timings: p50Micros ... maxMicros).
	// +optional
	LatencySource LatencySource `json:"latencySource,omitempty"`
	// Wire is the latency on the wire over the repetitions (see Measurement.Wire).
	// +optional
	Wire *LatencyStats `json:"wire,omitempty"`
	// GeneratorFloor is the load generator's own latency at this scenario and load point,
	// measured against the null responder (the calibration trials): what k6 reports when the
	// target takes no time at all.
	// +optional
	GeneratorFloor *GeneratorFloor `json:"generatorFloor,omitempty"`
	// +optional
	SLO Verdict `json:"slo,omitempty"`
	// Valid is false when a figure cannot be trusted; Flags say why: GeneratorBound (k6 busy
	// enough to inflate its own timings, and they are the latency of record), GeneratorLimited
	// (k6, not the target, limited a closed model's rate), DroppedIterations, RateShortfall,
	// ErrorsAboveSLO, FailedRepetitions, GeneratorNoise (the target's latency is within the
	// generator's own floor), SharedCores (k6 and the targets shared CPUs), MostlyFailed (over
	// half the requests failed or timed out).
	Valid bool `json:"valid"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=64
	Flags []string `json:"flags,omitempty"`
	// Message notes failed repetitions; at most MaxMessageLength (512) bytes.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
	// Baseline is this row against the same row of spec.baseline's run.
	// +optional
	Baseline *Comparison `json:"baseline,omitempty"`
}
