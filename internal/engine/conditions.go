package engine

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// SetCondition records a condition; its transition time changes only with its status.
func SetCondition(run *benchv1.BenchmarkRun, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: run.Generation,
	})
}

// Finished says whether the run has ended, Succeeded or Failed.
func Finished(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed
}

// GitOps derives Ready, Reconciling and Stalled (what kstatus and Argo CD read) from the
// phase and Conclusive. A run that finished its trials but measured nothing it can stand
// behind is Stalled with the reason Inconclusive, so a GitOps tool reads it Failed or
// Degraded and shows why, rather than Current or Healthy.
func GitOps(run *benchv1.BenchmarkRun) {
	set := func(ready, stalled bool, reason, readyMsg, stalledMsg string) {
		SetCondition(run, benchv1.ConditionReady, status(ready), reason, readyMsg)
		SetCondition(run, benchv1.ConditionReconciling, metav1.ConditionFalse, reason, "the run is finished")
		SetCondition(run, benchv1.ConditionStalled, status(stalled), reason, stalledMsg)
	}
	switch run.Status.Phase {
	case benchv1.PhaseSucceeded:
		if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive); c != nil && c.Status == metav1.ConditionFalse {
			set(false, true, benchv1.ReasonInconclusive, "inconclusive: "+c.Message, "inconclusive: "+c.Message)
			return
		}
		set(true, false, benchv1.ReasonSucceeded, "the run succeeded; results are in status.results", "the run is finished")
	case benchv1.PhaseFailed:
		set(false, true, benchv1.ReasonFailed, FailureMessage(run), FailureMessage(run))
	default:
		SetCondition(run, benchv1.ConditionReady, metav1.ConditionFalse, benchv1.ReasonPending, "the run has not finished")
		SetCondition(run, benchv1.ConditionReconciling, metav1.ConditionTrue, benchv1.ReasonProgressing, "phase "+string(run.Status.Phase))
		SetCondition(run, benchv1.ConditionStalled, metav1.ConditionFalse, benchv1.ReasonProgressing, "the run is progressing")
	}
}

func status(ok bool) metav1.ConditionStatus {
	if ok {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

// FailureMessage is the message of the first step condition that is False.
func FailureMessage(run *benchv1.BenchmarkRun) string {
	for _, t := range []string{benchv1.ConditionAccepted, benchv1.ConditionDependenciesReady, benchv1.ConditionDatabaseReady,
		benchv1.ConditionTargetsReady, benchv1.ConditionTargetsVerified, benchv1.ConditionComplete} {
		if c := meta.FindStatusCondition(run.Status.Conditions, t); c != nil && c.Status == metav1.ConditionFalse {
			return c.Message
		}
	}
	return "the run failed"
}
