package controllers

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Condition types of a BenchmarkRun, in one place.
const (
	// ConditionAccepted is True once the controller has read the spec and planned its trials.
	ConditionAccepted = "Accepted"
	// ConditionDependenciesReady is True when the CRDs of CloudNativePG, k6-operator and
	// prometheus-operator that the run needs are served.
	ConditionDependenciesReady = "DependenciesReady"
	// ConditionDatabaseReady is True when the CloudNativePG Cluster (and Pooler) serve.
	ConditionDatabaseReady = "DatabaseReady"
	// ConditionTargetsReady is True when every target's Deployment has an available pod.
	ConditionTargetsReady = "TargetsReady"
	// ConditionTargetsVerified is True when every target passed the contract checks.
	ConditionTargetsVerified = "TargetsVerified"
	// ConditionNodePoolsAvailable is False while another run loads a node pool this one needs.
	ConditionNodePoolsAvailable = "NodePoolsAvailable"
	// ConditionComplete is True once every trial that could run has run.
	ConditionComplete = "Complete"
	// ConditionSLOMet is the verdict of every result row against spec.slo.
	ConditionSLOMet = "SLOMet"
	// ConditionReady, ConditionReconciling and ConditionStalled are what GitOps tools
	// (kstatus, Argo CD) read: Ready is set False from the start so it is never assumed True.
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
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
		setCondition(run, ConditionReady, metav1.ConditionTrue, ReasonSucceeded, "the run succeeded; results are in status.results")
		setCondition(run, ConditionReconciling, metav1.ConditionFalse, ReasonSucceeded, "the run is finished")
		setCondition(run, ConditionStalled, metav1.ConditionFalse, ReasonSucceeded, "the run is finished")
	case benchv1.PhaseFailed:
		setCondition(run, ConditionReady, metav1.ConditionFalse, ReasonFailed, failureMessage(run))
		setCondition(run, ConditionReconciling, metav1.ConditionFalse, ReasonFailed, "the run is finished")
		setCondition(run, ConditionStalled, metav1.ConditionTrue, ReasonFailed, failureMessage(run))
	default:
		setCondition(run, ConditionReady, metav1.ConditionFalse, ReasonPending, "the run has not finished")
		setCondition(run, ConditionReconciling, metav1.ConditionTrue, ReasonProgressing, "phase "+string(run.Status.Phase))
		setCondition(run, ConditionStalled, metav1.ConditionFalse, ReasonProgressing, "the run is progressing")
	}
}

// failureMessage is the message of the first step condition that is False.
func failureMessage(run *benchv1.BenchmarkRun) string {
	for _, t := range []string{ConditionAccepted, ConditionDatabaseReady, ConditionTargetsReady, ConditionTargetsVerified, ConditionComplete} {
		if c := meta.FindStatusCondition(run.Status.Conditions, t); c != nil && c.Status == metav1.ConditionFalse {
			return c.Message
		}
	}
	return "the run failed"
}
