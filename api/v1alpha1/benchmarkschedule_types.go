package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkScheduleSpec is a BenchmarkRun template and when to run it.
type BenchmarkScheduleSpec struct {
	// Schedule in cron format: five fields ("0 3 * * *") or a descriptor ("@daily",
	// "@every 6h"), read in spec.timeZone. Times closer than 30 seconds apart are refused
	// (Stalled); so is a CRON_TZ= or TZ= prefix: spec.timeZone says the zone.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ')",message="CRON_TZ= and TZ= are not supported in spec.schedule: set spec.timeZone"
	Schedule string `json:"schedule"`

	// TimeZone is the IANA time zone spec.schedule is read in ("Europe/Berlin"); UTC when
	// unset. A zone the manager's time zone database (Go's own, built into the manager)
	// does not know stalls the schedule (Stalled, InvalidSchedule, naming this field).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_+][A-Za-z0-9_+.-]{0,13}(/[A-Za-z0-9_+][A-Za-z0-9_+.-]{0,13})*$`
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local'",message="an explicit IANA time zone (Local is the manager's own)"
	// +kubebuilder:validation:XValidation:rule="timestamp('2000-01-01T00:00:00Z').getFullYear(self) > 0",message="an IANA time zone the API server's time zone database knows"
	TimeZone string `json:"timeZone,omitempty"`

	// Suspend stops new runs; a run in progress goes on.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// StartingDeadlineSeconds: a scheduled time that cannot start within this many seconds
	// of it (the manager was down, the schedule suspended, concurrencyPolicy Forbid held it
	// behind a run in progress) is skipped, counted in status.missedScheduleTimes with a
	// MissedSchedule event, and never run late; under Forbid a time waits this long for the
	// run in progress to finish. Unset: the latest time passed starts as soon as it can,
	// however late (once: earlier missed times are not caught up), and Forbid skips a time
	// at once while a run is in progress.
	// +optional
	// +kubebuilder:validation:Minimum=10
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// ConcurrencyPolicy: Forbid skips a scheduled time while an earlier run of this schedule
	// is still in progress (two runs would load the same pools); Allow starts it anyway, up
	// to 3 runs in progress; Replace deletes the runs in progress (each one's finalizer
	// cleans up after it; what it measured is lost) and starts the new one.
	// +optional
	// +kubebuilder:default=Forbid
	// +kubebuilder:validation:Enum=Forbid;Allow;Replace
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

	// Triggers start runs besides the cron schedule.
	// +optional
	Triggers *ScheduleTriggers `json:"triggers,omitempty"`

	// BaselineRun pins the run every new run is compared with (instead of the last good
	// run) while it exists; it is never pruned.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	BaselineRun string `json:"baselineRun,omitempty"`

	// Triage acknowledges or accepts alerts (status.alerts): each clears the alerts it
	// matches and keeps that step from alerting again.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Triage []ScheduleTriage `json:"triage,omitempty"`

	// Template is the run each scheduled time creates. Its spec.baseline, when set, gives
	// the metric and minimum effect; the run compared with is always the schedule's last
	// good run (Succeeded, not Regressed), and none before there is one.
	Template BenchmarkRunTemplate `json:"template"`
}

// ScheduleTriggers start a run between scheduled times: continuous benchmarking of a new
// image or a changed template. Suspend stops them too; ConcurrencyPolicy Forbid holds a
// triggered run back until the run in progress has finished, Replace replaces that run.
type ScheduleTriggers struct {
	// ImageDigests: resolve the image of each of the template's targets (a preset's image
	// from the operator's configuration) to its digest in its registry every
	// PollInterval, and start a run when one differs from the digests the last run was
	// started with (status.imageDigests). The first digests a schedule sees are recorded
	// without a run.
	// +optional
	ImageDigests bool `json:"imageDigests,omitempty"`

	// TemplateChanges: start a run when spec.template differs from the template of the
	// last run the schedule started (a GitOps commit that changes a target's image, say).
	// +optional
	TemplateChanges bool `json:"templateChanges,omitempty"`

	// PollInterval between digest checks (default 15m, at least 1m).
	// +optional
	PollInterval *metav1.Duration `json:"pollInterval,omitempty"`
}

// ScheduleTriage is a decision about the alerts that start at one run.
type ScheduleTriage struct {
	// Run is the alert's run (status.alerts[].run): the first run at the new level.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Run string `json:"run"`
	// Target, Scenario, LoadPoint and Figure narrow it to one row's figure; each one left
	// out matches any.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Target string `json:"target,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Scenario string `json:"scenario,omitempty"`
	// +optional
	LoadPoint *int32 `json:"loadPoint,omitempty"`
	// +optional
	// +kubebuilder:validation:Enum=p50;p99;cpuPerRequest;capacity
	Figure string `json:"figure,omitempty"`
	// Action: Acknowledge (seen: being fixed, or noise) clears the alert; Accept (the new
	// level is the new normal) also lets Run be the next runs' baseline although it
	// Regressed, so later runs are compared with the new level.
	// +optional
	// +kubebuilder:default=Acknowledge
	// +kubebuilder:validation:Enum=Acknowledge;Accept
	Action string `json:"action,omitempty"`
	// Note says why, for the record.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Note string `json:"note,omitempty"`
}

// Triage actions.
const (
	TriageAcknowledge = "Acknowledge"
	TriageAccept      = "Accept"
)

// BenchmarkRunTemplate is the labels, annotations and spec of a scheduled run. They sit in
// the schedule's spec, which the manager caches whole, so they have bounds of their own: at
// most 32 labels with label-sized values and 32 annotations of up to 1 KiB each.
type BenchmarkRunTemplate struct {
	// Labels of every run the schedule starts.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && size(self[k]) <= 63)",message="a label key is at most 317 characters (a 253-character prefix, '/', a 63-character name) and its value at most 63"
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations of every run the schedule starts.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && size(self[k]) <= 1024)",message="an annotation key is at most 317 characters and its value at most 1024"
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        BenchmarkRunSpec  `json:"spec"`
}

// LabelSchedule names, on each run a BenchmarkSchedule creates, the schedule; the
// annotation AnnotationScheduledAt holds its scheduled time (RFC 3339).
const (
	LabelSchedule         = "gauntlet.dev/schedule"
	AnnotationScheduledAt = "gauntlet.dev/scheduled-at"
	// AnnotationTrigger says what started a scheduled run: Schedule (its cron time),
	// ImageDigest or TemplateChange (spec.triggers), or Manual (AnnotationRunNow).
	AnnotationTrigger = "gauntlet.dev/trigger"
	// AnnotationRunNow on a schedule asks for one run now: each new value starts exactly one
	// run (status.lastRunRequest records the value acted on), which carries the same
	// annotation and value. `kubectl annotate --overwrite`, a Git commit or `gauntlet
	// schedule trigger` sets it.
	AnnotationRunNow = "gauntlet.dev/run-now"
)

// Triggers of a scheduled run (AnnotationTrigger).
const (
	TriggerSchedule       = "Schedule"
	TriggerImageDigest    = "ImageDigest"
	TriggerTemplateChange = "TemplateChange"
	TriggerManual         = "Manual"
)

// ConditionRegressing is a schedule's condition: True while it holds an alert
// (status.alerts): a row's figure stepped to a worse level, confirmed, not undone, not
// triaged.
const ConditionRegressing = "Regressing"

// Concurrency policies.
const (
	ConcurrencyForbid  = "Forbid"
	ConcurrencyAllow   = "Allow"
	ConcurrencyReplace = "Replace"
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

	// MissedScheduleTimes counts the scheduled times skipped for starting later than
	// spec.startingDeadlineSeconds.
	// +optional
	MissedScheduleTimes int64 `json:"missedScheduleTimes,omitempty"`

	// LastRunRequest is the last value of the schedule's gauntlet.dev/run-now annotation
	// acted on (a value over 128 characters as its SHA-256): a new value starts one run.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	LastRunRequest string `json:"lastRunRequest,omitempty"`

	// LastGoodRun is the newest run that succeeded without regressing: the next run's
	// baseline.
	// +optional
	LastGoodRun string `json:"lastGoodRun,omitempty"`

	// Runs are the schedule's runs still present, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=110
	Runs []ScheduledRun `json:"runs,omitempty"`

	// HistoryRuns is how many runs the history holds the figures of (the ConfigMap
	// <schedule>-history, or the history database within its retention), as of the last
	// analysis: the series change points are found in.
	// +optional
	HistoryRuns int32 `json:"historyRuns,omitempty"`

	// ChangePoints are the change points found over the history, newest first (at most
	// 20): where a row's figure moved to a new level, by E-Divisive means with a
	// permutation test (gauntlet history does the same over a folder of runs).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	ChangePoints []ScheduleChangePoint `json:"changePoints,omitempty"`

	// Alerts are the confirmed steps to a worse level not yet triaged (spec.triage) nor
	// undone (the newest runs back nearer the old level), oldest first, at most one per row
	// and figure; each stays until then. Regressing is True while there is one.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Alerts []ScheduleChangePoint `json:"alerts,omitempty"`

	// LastTemplateHash is a hash of spec.template when the last run was started
	// (triggers.templateChanges compares it).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	LastTemplateHash string `json:"lastTemplateHash,omitempty"`

	// ImageDigests are the digests of the template's images when the last run was
	// started (triggers.imageDigests), one per image.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	ImageDigests []ImageDigest `json:"imageDigests,omitempty"`

	// LastDigestCheckTime is when the digests were last resolved.
	// +optional
	LastDigestCheckTime *metav1.Time `json:"lastDigestCheckTime,omitempty"`
}

// ImageDigest is an image reference and the digest it resolved to.
type ImageDigest struct {
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image"`
	// +kubebuilder:validation:MaxLength=128
	Digest string `json:"digest"`
}

// ScheduleChangePoint is where one row's figure moved to a new level over the schedule's
// runs. No floats: the change is in parts per million, the levels in the figure's unit.
type ScheduleChangePoint struct {
	// +kubebuilder:validation:MaxLength=63
	Target string `json:"target"`
	// +kubebuilder:validation:MaxLength=63
	Scenario string `json:"scenario"`
	// LoadPoint is the row's rate or connections (0 for a capacity search's answer).
	// +optional
	LoadPoint int32 `json:"loadPoint,omitempty"`
	// Figure is p50, p99, cpuPerRequest (µs of CPU per request) or capacity (req/s).
	// +kubebuilder:validation:Enum=p50;p99;cpuPerRequest;capacity
	Figure string `json:"figure"`
	// Run is the first run at the new level.
	// +kubebuilder:validation:MaxLength=253
	Run string `json:"run"`
	// RunTime is that run's scheduled time.
	// +optional
	RunTime *metav1.Time `json:"runTime,omitempty"`
	// Direction is Slower (latency or CPU up, capacity down) or Faster.
	// +kubebuilder:validation:Enum=Slower;Faster
	Direction string `json:"direction"`
	// Before and After are the mean levels either side, rounded, in the figure's unit (µs
	// for p50, p99 and cpuPerRequest; requests per second for capacity).
	Before int64 `json:"before"`
	After  int64 `json:"after"`
	// ChangePPM is after/before - 1 in parts per million (+200000 is 20% higher).
	ChangePPM int64 `json:"changePPM"`
	// MagnitudePPM is Otava's relative magnitude (the larger of the forward and backward
	// changes), in parts per million.
	MagnitudePPM int64 `json:"magnitudePPM"`
	// PValue is the permutation test's p-value, as a decimal string ("0.002"); for an
	// alert, the alert's test's (after its corrections).
	// +kubebuilder:validation:MaxLength=16
	PValue string `json:"pValue"`
	// Recent: the change starts within the newest runs of the history (5), so it may be
	// new; a Slower recent one sets Regressing.
	// +optional
	Recent bool `json:"recent,omitempty"`
	// EnvironmentChanged says what differed between the run the change starts at and the
	// run before it (status.environment: machines, kernel, runtimes, image digests). Such a
	// change may be the machines', not the code's: it does not make Regressing True.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	EnvironmentChanged string `json:"environmentChanged,omitempty"`
	// DetectedAt is when the operator first found it.
	DetectedAt metav1.Time `json:"detectedAt"`
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
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name: at most 63 characters (it is a label value on each run)"
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.timeZone`,priority=1
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Baseline",type=string,JSONPath=`.status.lastGoodRun`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Regressing",type=string,JSONPath=`.status.conditions[?(@.type=="Regressing")].status`,priority=1
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
