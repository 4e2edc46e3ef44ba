package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkScheduleSpec is a BenchmarkRun template and when to run it.
type BenchmarkScheduleSpec struct {
	// Schedule in cron format: five fields ("0 3 * * *"), a descriptor ("@daily",
	// "@every 6h"), optionally prefixed by "CRON_TZ=Europe/Paris " (UTC otherwise).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Schedule string `json:"schedule"`

	// Suspend stops new runs; a run in progress goes on.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// ConcurrencyPolicy: Forbid skips a scheduled time while an earlier run of this schedule
	// is still in progress (two runs would load the same pools); Allow starts it anyway.
	// +optional
	// +kubebuilder:default=Forbid
	// +kubebuilder:validation:Enum=Forbid;Allow
	ConcurrencyPolicy string `json:"concurrencyPolicy,omitempty"`

	// SuccessfulRunsHistoryLimit keeps this many finished runs that succeeded (the last
	// good run, the next run's baseline, is always kept).
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=50
	SuccessfulRunsHistoryLimit *int32 `json:"successfulRunsHistoryLimit,omitempty"`

	// FailedRunsHistoryLimit keeps this many finished runs that failed.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=50
	FailedRunsHistoryLimit *int32 `json:"failedRunsHistoryLimit,omitempty"`

	// Template is the run each scheduled time creates. Its spec.baseline, when set, gives
	// the metric and minimum effect; the run compared with is always the schedule's last
	// good run (Succeeded, not Regressed), and none before there is one.
	Template BenchmarkRunTemplate `json:"template"`
}

// BenchmarkRunTemplate is the labels, annotations and spec of a scheduled run.
type BenchmarkRunTemplate struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        BenchmarkRunSpec  `json:"spec"`
}

// LabelSchedule names, on each run a BenchmarkSchedule creates, the schedule; the
// annotation AnnotationScheduledAt holds its scheduled time (RFC 3339).
const (
	LabelSchedule         = "gauntlet.dev/schedule"
	AnnotationScheduledAt = "gauntlet.dev/scheduled-at"
)

// Concurrency policies.
const (
	ConcurrencyForbid = "Forbid"
	ConcurrencyAllow  = "Allow"
)

// BenchmarkScheduleStatus is what the schedule has done.
type BenchmarkScheduleStatus struct {
	// ObservedGeneration is the generation the status describes (kstatus reads it).
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastScheduleTime is the last scheduled time a run was started (or skipped) for.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// NextScheduleTime is the next one.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`

	// LastGoodRun is the newest run that succeeded without regressing: the next run's
	// baseline.
	// +optional
	LastGoodRun string `json:"lastGoodRun,omitempty"`

	// Runs are the schedule's runs still present, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=110
	Runs []ScheduledRun `json:"runs,omitempty"`
}

// ScheduledRun is one run of a schedule and its verdict.
type ScheduledRun struct {
	Name          string      `json:"name"`
	ScheduledTime metav1.Time `json:"scheduledTime"`
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Baseline is the run it was compared with.
	// +optional
	Baseline string `json:"baseline,omitempty"`
	// Regressed is the run's Regressed condition: True, False or Unknown (empty while it
	// runs or without a baseline).
	// +optional
	Regressed metav1.ConditionStatus `json:"regressed,omitempty"`
	// Headline is the run's one-line result.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Headline string `json:"headline,omitempty"`
}

// BenchmarkSchedule runs a BenchmarkRun template on a cron schedule, each run compared with
// the last good one.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bs,categories=gauntlet
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Baseline",type=string,JSONPath=`.status.lastGoodRun`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BenchmarkSchedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BenchmarkScheduleSpec `json:"spec"`
	// +optional
	Status BenchmarkScheduleStatus `json:"status,omitempty"`
}

// BenchmarkScheduleList is a list of BenchmarkSchedules.
// +kubebuilder:object:root=true
type BenchmarkScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkSchedule `json:"items"`
}

func init() {
	SchemeBuilder.Register(&BenchmarkSchedule{}, &BenchmarkScheduleList{})
}
