package v1alpha1

// Baseline says what result rows are compared with and how: an earlier run (Run), and for
// targets with spec.targets[].baselineTarget, their baseline target in this same run. The
// verdicts say whether a row is faster, slower or unchanged, and the Regressed condition lets
// CI gate on it.
type Baseline struct {
	// Run names an earlier BenchmarkRun in the same namespace. In the local mode, the newest
	// results folder of a run of that name in the output directory (--baseline overrides).
	// Optional when the comparison is within the run (spec.targets[].baselineTarget): a run
	// made at another time, often on other nodes, differs by more than the changes looked
	// for, so a same-run pair is the sharper test.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Run string `json:"run,omitempty"`

	// Metric compared, over the repetitions: a percentile of the latency of record (the
	// wire's when both runs captured it, else k6's), or cpuPerRequest, the target's CPU time
	// per request served (its mean CPU over the achieved rate). p50 is the steadiest
	// latency; a tail percentile judges what an SLO reads, with more noise. cpuPerRequest
	// counts no waiting (a request queued behind other work on the machine costs no more
	// CPU), so it isolates a change in the work a request does; a busy machine still
	// raises it somewhat (shared caches and cores).
	// +optional
	// +kubebuilder:default=p50
	// +kubebuilder:validation:Enum=p50;p90;p95;p99;p999;cpuPerRequest
	Metric string `json:"metric,omitempty"`

	// MinEffect is the smallest relative shift that counts as a change, a decimal fraction
	// of the baseline's median such as "0.05" (5%): a real but smaller shift is NoChange.
	// +optional
	// +kubebuilder:default="0.05"
	// +kubebuilder:validation:MaxLength=6
	// +kubebuilder:validation:Pattern=`^0\.[0-9]{1,4}$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^0\\\\.0+$')",message="minEffect must be above 0"
	MinEffect string `json:"minEffect,omitempty"`
}

// RegressionVerdict is a result row against the matching row of the baseline.
// +kubebuilder:validation:Enum=Faster;Slower;NoChange;Inconclusive
type RegressionVerdict string

// Regression verdicts.
const (
	// Faster and Slower: the Mann-Whitney U test rejects "no difference" at alpha 0.05 and
	// the Hodges-Lehmann shift is at least the minimum effect.
	VerdictFaster RegressionVerdict = "Faster"
	VerdictSlower RegressionVerdict = "Slower"
	// NoChange: the shift is shown to lie within ± the minimum effect (two one-sided tests
	// at alpha 0.05: its 90% interval inside the band), or it is real (significant) but
	// smaller than the minimum effect.
	VerdictNoChange RegressionVerdict = "NoChange"
	// Inconclusive: fewer than 4 valid repetitions on a side (a repetition flagged on its
	// own, such as DroppedIterations, is left out), no matching baseline row, a row void as
	// a whole (SharedCores, GeneratorNoise), or data too noisy to rule a change of the
	// minimum effect in or out.
	VerdictInconclusive RegressionVerdict = "Inconclusive"
)

// Comparison is one result row against the matching baseline row (same target, scenario and
// load point of the baseline run, or the baseline target's row of this run), from the
// repetitions of both. Shifts are this row minus the baseline: a positive latency shift is
// slower.
type Comparison struct {
	Verdict RegressionVerdict `json:"verdict"`
	// BaselineTarget is the target of this run compared with (spec.targets[].baselineTarget);
	// empty when the baseline is another run (spec.baseline.run).
	// +optional
	// +kubebuilder:validation:MaxLength=40
	BaselineTarget string `json:"baselineTarget,omitempty"`
	// Metric is the figure compared (spec.baseline.metric) and Source, for a latency, whose
	// it is (Wire when both runs captured every repetition on the wire, else Generator).
	Metric string `json:"metric"`
	// +optional
	Source LatencySource `json:"source,omitempty"`
	// BaselineRepetitions and Repetitions are the valid repetitions compared on each side (n).
	BaselineRepetitions int32 `json:"baselineRepetitions"`
	// +optional
	Repetitions int32 `json:"repetitions,omitempty"`
	// BaselineMicros and Micros are the metric's medians over the repetitions of each run
	// (µs of latency, or of CPU time per request).
	BaselineMicros int64 `json:"baselineMicros"`
	Micros         int64 `json:"micros"`
	// ShiftMicros is the Hodges-Lehmann shift: the median of the differences between this
	// run's repetitions and the baseline's.
	ShiftMicros int64 `json:"shiftMicros"`
	// ShiftPPM is the shift relative to BaselineMicros, in parts per million (+200000 is 20%
	// slower); ShiftLowPPM and ShiftHighPPM bound its 95% confidence interval (absent when
	// too few repetitions reach 95%).
	ShiftPPM int64 `json:"shiftPPM"`
	// +optional
	ShiftLowPPM *int64 `json:"shiftLowPPM,omitempty"`
	// +optional
	ShiftHighPPM *int64 `json:"shiftHighPPM,omitempty"`
	// MinDetectablePPM is the smallest shift, relative to BaselineMicros in parts per
	// million, that these repetitions would call Slower or Faster four times in five, given
	// their spread: (z 0.975 + z 0.8) standard errors of the shift, the standard error read
	// off the 95% interval, and never below the minimum effect. Absent when the repetitions
	// are too few for any verdict. A NoChange or Inconclusive row says nothing about
	// changes smaller than this.
	// +optional
	MinDetectablePPM *int64 `json:"minDetectablePPM,omitempty"`
	// Test is how the repetitions were compared: MannWhitney (the rank test on the two
	// samples, for a baseline run) or PairedT (Student's t on each round's log ratio, for a
	// same-run pair, whose rounds share the machine's state).
	// +optional
	// +kubebuilder:validation:Enum=MannWhitney;PairedT
	Test string `json:"test,omitempty"`
	// PValue is the two-sided p-value of the Test, a decimal such as "0.0286".
	// +optional
	// +kubebuilder:validation:MaxLength=16
	PValue string `json:"pValue,omitempty"`
	// Message says why a verdict is Inconclusive, or which repetitions were left out; at
	// most MaxComparisonMessageLength (256) bytes, so 200 rows' comparisons fit the status.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`
}

// BaselineRef says what the run was compared with.
type BaselineRef struct {
	// Run is the baseline run's name; Source where it was read (namespace/name in a
	// cluster, the results folder in the local mode). Both are empty when every comparison
	// was within this run (Pairs).
	// +optional
	Run string `json:"run,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Source string `json:"source,omitempty"`
	// +optional
	Metric string `json:"metric,omitempty"`
	// +optional
	MinEffect string `json:"minEffect,omitempty"`
	// Pairs are the same-run comparisons, candidate against baseline target, such as
	// "v2 vs v1".
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Pairs string `json:"pairs,omitempty"`
}
