package local

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Every measured request failed: the local mode ends the run Failed with AllRequestsFailed,
// as the operator does (it used to end it Succeeded).
func TestAllRequestsFailedFailsTheRun(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{Rates: []int32{100}}}}
	for _, name := range []string{"go-ping-100-r1", "go-ping-100-r2"} {
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: name, Target: "go", Scenario: "ping", LoadPoint: 100,
			Phase: benchv1.TrialSucceeded, Result: &benchv1.Measurement{Requests: 3000, Errors: 3000, ErrorRatePPM: 1_000_000}})
	}
	finish(run, false, "", nil)
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete)
	if run.Status.Phase != benchv1.PhaseFailed || c == nil || c.Reason != benchv1.ReasonAllRequestsFailed {
		t.Fatalf("phase %s, Complete %+v: want Failed, AllRequestsFailed", run.Status.Phase, c)
	}
	if r := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionReady); r == nil || r.Reason != benchv1.ReasonFailed {
		t.Errorf("Ready %+v", r)
	}
}
