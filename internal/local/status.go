package local

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// setCondition records a condition; the transition time is now whenever its status changes.
func setCondition(run *benchv1.BenchmarkRun, typ string, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	engine.SetCondition(run, typ, status, reason, msg)
}

// finish lets the engine decide the run, as the operator does: interrupted (a signal) and
// fatal (a setup failure) fail it first with their own reasons; Finish then tallies it.
func finish(run *benchv1.BenchmarkRun, interrupted bool, fatal string, notify engine.Notify) {
	now := time.Now()
	switch {
	case interrupted:
		engine.Fail(run, benchv1.ConditionComplete, benchv1.ReasonInterrupted,
			"stopped by a signal after "+results.Progress(run.Status.Trials)+" trials; the figures are those measured so far", now, notify)
	case fatal != "":
		engine.Fail(run, benchv1.ConditionComplete, benchv1.ReasonSetupFailed, fatal, now, notify)
	}
	engine.Finish(run, now, notify)
	engine.GitOps(run)
}
