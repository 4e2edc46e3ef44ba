package v1alpha1

// Search finds, per target and scenario, the capacity: the highest arrival rate at which the
// SLO holds and the row is valid (no dropped iterations, at least 99% of the offered rate,
// the load generator not saturated). It brackets (doubling from Start), then bisects to
// Width with short trials, then measures the answer with full-length trials (Warmup,
// Duration and Repetitions of spec.load). A failing rate is measured again before it is
// trusted (Attempts); a pass is trusted at once, since noise makes trials worse, and an
// overloaded target's queue cannot shrink by luck. Method after MLRsearch (RFC 9971): short
// trials early, full trials for the final answer, noisy trials retried rather than trusted.
// +kubebuilder:validation:XValidation:rule="!has(self.maxRate) || !has(self.start) || self.maxRate >= self.start",message="maxRate must be at least start",fieldPath=".maxRate"
type Search struct {
	// Start is the first rate tried, in requests per second.
	// +optional
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	Start int32 `json:"start,omitempty"`

	// MaxRate is the most the search offers; a target that holds it is reported as a lower
	// bound ("at least"), as is one the load generator cannot drive to its limit.
	// +optional
	// +kubebuilder:default=1000000
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	MaxRate int32 `json:"maxRate,omitempty"`

	// Width ends the bisection: once the lowest failing rate is within this fraction above
	// the highest passing one, a decimal such as "0.05" (5%).
	// +optional
	// +kubebuilder:default="0.05"
	// +kubebuilder:validation:MaxLength=6
	// +kubebuilder:validation:Pattern=`^0\.[0-9]{1,4}$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^0\\\\.0+$')",message="width must be above 0"
	Width string `json:"width,omitempty"`

	// StepWarmup and StepDuration are the windows of the short trials that bracket and bisect;
	// the answer is measured with spec.load's warmup and duration.
	// +optional
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="stepWarmup must be at most 1h"
	StepWarmup Duration `json:"stepWarmup,omitempty"`
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) <= duration('1h')",message="stepDuration must be at most 1h"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]{1,5}(ms|s|m|h))+$') || duration(self) > duration('0s')",message="stepDuration must be positive"
	StepDuration Duration `json:"stepDuration,omitempty"`

	// MaxSteps bounds the short trials of one search, retries included; the answer's
	// full-length repetitions come on top.
	// +optional
	// +kubebuilder:default=16
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=40
	MaxSteps int32 `json:"maxSteps,omitempty"`

	// Attempts is how many short trials a failing rate gets: it fails when most of them
	// fail. 1 trusts every failure.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Enum=1;3;5
	Attempts int32 `json:"attempts,omitempty"`
}

// SearchPhase is where one capacity search stands.
// +kubebuilder:validation:Enum=Bracketing;Bisecting;Confirming;Done;Failed
type SearchPhase string

// Search phases.
const (
	SearchBracketing SearchPhase = "Bracketing"
	SearchBisecting  SearchPhase = "Bisecting"
	SearchConfirming SearchPhase = "Confirming"
	SearchDone       SearchPhase = "Done"
	SearchFailed     SearchPhase = "Failed"
)

// CapacityBound says what the answer is.
// +kubebuilder:validation:Enum=Capacity;LowerBound
type CapacityBound string

// Capacity bounds.
const (
	// BoundCapacity: a higher rate failed because of the target (SLO or validity): the
	// answer is the capacity, within the width.
	BoundCapacity CapacityBound = "Capacity"
	// BoundLower: nothing above the answer failed because of the target: the load generator
	// saturated first, or maxRate was reached. The capacity is at least the answer.
	BoundLower CapacityBound = "LowerBound"
)

// Confidence in a search's answer.
// +kubebuilder:validation:Enum=High;Medium;Low
type Confidence string

// Confidence levels.
const (
	// ConfidenceHigh: every full-length repetition passed at the answer, no rate gave
	// contradictory trials, and the width was reached.
	ConfidenceHigh Confidence = "High"
	// ConfidenceMedium: the answer held in most repetitions, or some rate was noisy.
	ConfidenceMedium Confidence = "Medium"
	// ConfidenceLow: the step budget ran out before the width was reached.
	ConfidenceLow Confidence = "Low"
)

// StepOutcome is one search trial judged.
// +kubebuilder:validation:Enum=Pending;Pass;Fail;GeneratorLimited
type StepOutcome string

// Step outcomes.
const (
	StepPending          StepOutcome = "Pending"
	StepPass             StepOutcome = "Pass"
	StepFail             StepOutcome = "Fail"
	StepGeneratorLimited StepOutcome = "GeneratorLimited"
)

// StepKind is what a search trial was for.
// +kubebuilder:validation:Enum=Bracket;Bisect;Confirm
type StepKind string

// Step kinds: Bracket and Bisect are short trials, Confirm the full-length ones.
const (
	StepBracket StepKind = "Bracket"
	StepBisect  StepKind = "Bisect"
	StepConfirm StepKind = "Confirm"
)

// CapacitySearch is one target and scenario's search: the steps taken and the answer.
type CapacitySearch struct {
	Target   string      `json:"target"`
	Scenario string      `json:"scenario"`
	Phase    SearchPhase `json:"phase"`
	// CapacityRPS is the answer: the highest rate that passed, confirmed by full-length
	// repetitions once Done (0 while none has passed).
	// +optional
	CapacityRPS int32 `json:"capacityRPS,omitempty"`
	// UpperRPS is the lowest rate that failed (0: none did).
	// +optional
	UpperRPS int32 `json:"upperRPS,omitempty"`
	// +optional
	Bound CapacityBound `json:"bound,omitempty"`
	// +optional
	Confidence Confidence `json:"confidence,omitempty"`
	// PassedRepetitions of Repetitions full-length trials passed at CapacityRPS (the
	// repetitions, and any full-length step taken at that rate before them).
	// +optional
	PassedRepetitions int32 `json:"passedRepetitions,omitempty"`
	// +optional
	Repetitions int32 `json:"repetitions,omitempty"`
	// CostMicroUSDPerMillion is the target's node pool's hourly price per million requests
	// at CapacityRPS, in millionths of a US dollar (with spec.nodePools[].hourlyPrice).
	// +optional
	CostMicroUSDPerMillion *int64 `json:"costMicroUSDPerMillion,omitempty"`
	// Message explains the answer (or why there is none); at most MaxSearchMessageLength
	// (256) bytes.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`
	// Steps in the order they ran.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=80
	Steps []SearchStep `json:"steps,omitempty"`
}

// SearchStep is one trial of a search.
type SearchStep struct {
	// Trial names the trial in status.trials.
	Trial   string      `json:"trial"`
	Kind    StepKind    `json:"kind"`
	RPS     int32       `json:"rps"`
	Outcome StepOutcome `json:"outcome"`
	// P99Micros is the trial's p99 of record and AchievedMilliRPS its achieved rate.
	// +optional
	P99Micros int64 `json:"p99Micros,omitempty"`
	// +optional
	AchievedMilliRPS int64 `json:"achievedMilliRPS,omitempty"`
	// Reason says why a step failed: the flags or the SLO figure it missed; at most 128 bytes.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Reason string `json:"reason,omitempty"`
}
