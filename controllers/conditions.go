package controllers

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Condition reasons.
const (
	ReasonSpecAccepted = "SpecAccepted"
	ReasonInvalidSpec  = "InvalidSpec"
	ReasonPending      = "Pending"

	ReasonMissingDependency = "MissingDependency"
	ReasonInstalled         = "Installed"

	ReasonNotRequested    = "NotRequested"
	ReasonProvisioning    = "Provisioning"
	ReasonDatabaseHealthy = "Healthy"
	ReasonDatabaseTimeout = "DatabaseTimeout"

	ReasonDeploying       = "Deploying"
	ReasonAvailable       = "Available"
	ReasonTargetsTimeout  = "TargetsTimeout"
	ReasonNoImage         = "NoImage"
	ReasonVerifying       = "Verifying"
	ReasonPassed          = "Passed"
	ReasonVerifyFailed    = "VerificationFailed"
	ReasonPoolFree        = "Free"
	ReasonWaitingForPool  = "WaitingForNodePool"
	ReasonTrialsRunning   = "TrialsRunning"
	ReasonAllTrialsRan    = "AllTrialsRan"
	ReasonTrialFailed     = "TrialFailed"
	ReasonSLOMet          = "Met"
	ReasonSLOMissed       = "Missed"
	ReasonSucceeded       = "Succeeded"
	ReasonFailed          = "Failed"
	ReasonProgressing     = "Progressing"
	ReasonCleanedUp       = "CleanedUp"
	ReasonTrialFinished   = "TrialFinished"
	ReasonTrialStarted    = "TrialStarted"
	ReasonDeletingObjects = "DeletingObjects"

	// ReasonCreateRefused: the API server refused an object the run needs (422 Invalid or
	// 400); retrying would not help, so the run fails with the API server's message.
	ReasonCreateRefused = "CreateRefused"
	// ReasonVerifyTimeout: a target's contract checks did not finish within the deadline.
	ReasonVerifyTimeout = "VerificationTimeout"
	// ReasonTrialTimeout: a TestRun did not start, or did not finish, within its deadline.
	ReasonTrialTimeout = "TrialTimeout"
	// ReasonLoadUnschedulable: a pod of a trial's TestRun (initializer, runner or starter)
	// stayed unschedulable past its deadline; also the event while it waits.
	ReasonLoadUnschedulable = "LoadUnschedulable"
	// ReasonRunTimeout: the run went past the operator's maximum run duration.
	ReasonRunTimeout = "RunTimeout"
	// ReasonTargetDrift: a target's Deployment was deleted, scaled down or edited mid-run.
	ReasonTargetDrift = "TargetChanged"
	// ReasonDatabaseDrift: the run's PostgreSQL or PgBouncer went unready, or a pod of theirs
	// was replaced or restarted, while a trial ran.
	ReasonDatabaseDrift = "DatabaseChanged"
	// ReasonAllRequestsFailed: every measured trial had 100% errors; the run is Failed
	// (Complete=False with this reason): nothing a target served was measured.
	ReasonAllRequestsFailed = "AllRequestsFailed"
	// ReasonSeriesBeyondWire: k6's series count answered requests the target's wire never
	// carried; someone else wrote them to Prometheus under the trial's labels.
	ReasonSeriesBeyondWire = "SeriesBeyondWire"
	// ReasonBaselineCompared and ReasonRegressed are the events of the baseline comparison.
	ReasonBaselineCompared = "BaselineCompared"
	ReasonRegressed        = "Regressed"
	// ReasonSearchStep is the event of a capacity search's progress.
	ReasonSearchStep = "SearchStep"
	// ReasonImageNotAllowed: a bring-your-own image is outside the operator's allow-list.
	ReasonImageNotAllowed = "ImageNotAllowed"
	// ReasonCalibrationSkipped and ReasonCalibrationFailed: the generator floor was not
	// measured (events only; the run goes on without it).
	ReasonCalibrationSkipped = "CalibrationSkipped"
	ReasonCalibrationFailed  = "CalibrationFailed"
	// ReasonNullResponderRemoved: calibration is over and the null responder is deleted
	// (an event).
	ReasonNullResponderRemoved = "NullResponderRemoved"
)

func setCondition(run *benchv1.BenchmarkRun, t string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{
		Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: run.Generation,
	})
}

func finished(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed
}

// gitOpsConditions derives Ready, Reconciling and Stalled from the phase, once per pass.
func gitOpsConditions(run *benchv1.BenchmarkRun) {
	switch run.Status.Phase {
	case benchv1.PhaseSucceeded:
		setCondition(run, benchv1.ConditionReady, metav1.ConditionTrue, ReasonSucceeded, "the run succeeded; results are in status.results")
		setCondition(run, benchv1.ConditionReconciling, metav1.ConditionFalse, ReasonSucceeded, "the run is finished")
		setCondition(run, benchv1.ConditionStalled, metav1.ConditionFalse, ReasonSucceeded, "the run is finished")
	case benchv1.PhaseFailed:
		setCondition(run, benchv1.ConditionReady, metav1.ConditionFalse, ReasonFailed, failureMessage(run))
		setCondition(run, benchv1.ConditionReconciling, metav1.ConditionFalse, ReasonFailed, "the run is finished")
		setCondition(run, benchv1.ConditionStalled, metav1.ConditionTrue, ReasonFailed, failureMessage(run))
	default:
		setCondition(run, benchv1.ConditionReady, metav1.ConditionFalse, ReasonPending, "the run has not finished")
		setCondition(run, benchv1.ConditionReconciling, metav1.ConditionTrue, ReasonProgressing, "phase "+string(run.Status.Phase))
		setCondition(run, benchv1.ConditionStalled, metav1.ConditionFalse, ReasonProgressing, "the run is progressing")
	}
}

// failureMessage is the message of the first step condition that is False.
func failureMessage(run *benchv1.BenchmarkRun) string {
	for _, t := range []string{benchv1.ConditionAccepted, benchv1.ConditionDatabaseReady, benchv1.ConditionTargetsReady, benchv1.ConditionTargetsVerified, benchv1.ConditionComplete} {
		if c := meta.FindStatusCondition(run.Status.Conditions, t); c != nil && c.Status == metav1.ConditionFalse {
			return c.Message
		}
	}
	return "the run failed"
}
