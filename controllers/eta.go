package controllers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// trialStartup is what a trial spends beside its windows and Prometheus's grace: creating
// the TestRun and starting k6's initializer and runner pods.
const trialStartup = 30 * time.Second

// estimateFinish sets status.estimatedFinishAt from the trials left, every pass until the
// run finishes. The recorded estimate stays while a new one is within a minute of it: every
// status write starts another pass, and an estimate that moved with the clock would loop.
func estimateFinish(run *benchv1.BenchmarkRun, now time.Time, grace time.Duration) {
	if finished(run) {
		run.Status.EstimatedFinishAt = nil
		return
	}
	var old *time.Time
	if e := run.Status.EstimatedFinishAt; e != nil {
		old = &e.Time
	}
	next := plan.EstimatedFinish(&run.Spec, run.Status.Trials, now.Truncate(time.Second), grace+trialStartup)
	if at := plan.ReviseEstimate(old, next); at == nil {
		run.Status.EstimatedFinishAt = nil
	} else if at != old {
		run.Status.EstimatedFinishAt = &metav1.Time{Time: *at}
	}
}
