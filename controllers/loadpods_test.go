package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// loadDeadline is the Unschedulable deadline of these tests; the other waits of a trial
// (TrialStart, TrialFinish) are far longer, so only the pods' own state can end it early.
const loadDeadline = 3 * time.Second

// A TestRun whose pods are stuck or die ends its trial, and the run by its policy, with the
// pod and the cause named, long before the trial's other deadlines: k6-operator itself would
// leave it waiting.
func TestStuckOrDeadLoadFailsTheTrial(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const ns = "loadpods"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Timeouts.Unschedulable = loadDeadline
		r.Timeouts.TrialStart, r.Timeouts.TrialFinish = 5*time.Minute, 5*time.Minute
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })

	cases := []struct {
		name    string
		outcome *k6Outcome
		reason  string
		message []string
		waiting []string // what the Complete condition says while the trial waits
	}{
		{"starter-unschedulable", &k6Outcome{starterUnschedulable: true}, benchv1.ReasonLoadUnschedulable,
			[]string{"starter pod ", "-starter-q8m4t could not be scheduled within 3s", "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu"},
			[]string{"waiting for TestRun ", "'s starter pod ", "Insufficient cpu"}},
		{"runner-oom-killed", &k6Outcome{oomKillAfter: time.Second, hold: make(chan struct{})}, benchv1.ReasonTrialFailed,
			[]string{"k6 runner pod ", "-1-x7k2p was OOMKilled (exit code 137, memory limit", "spec.loadGenerator.resources.memory"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run := pingRun("load-" + c.name)
			run.Namespace = ns
			// A window a minute long: the trial may only end early, by its pods' state.
			run.Spec.Load.Duration = "60s"
			run.Spec.NodePools = []benchv1.NodePool{{Name: "pool", NodeSelector: map[string]string{"gauntlet.test/pool": c.name}}}
			run.Spec.Targets[0].NodePool = "pool"
			run.Spec.Cleanup.Policy = "Always"
			if c.outcome.hold != nil {
				t.Cleanup(func() { close(c.outcome.hold) })
			}
			fakes.script(run.Name, c.outcome)
			if err := env.Client.Create(ctx, run); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })

			saidWhy := false
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, func(r *benchv1.BenchmarkRun) bool {
				if cond := meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionComplete); cond != nil && r.Status.Phase == benchv1.PhaseRunning && contains(cond.Message, c.waiting) {
					saidWhy = true
				}
				return finished(r)
			})
			cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
			if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != c.reason {
				t.Fatalf("phase %s, Complete = %+v; want Failed, reason %s", got.Status.Phase, cond, c.reason)
			}
			trial := got.Status.Trials[0]
			t.Logf("Complete: %s", cond.Message)
			if !contains(cond.Message, c.message) || !contains(trial.Message, c.message) {
				t.Errorf("Complete %q, trial %q: want both to say %q", cond.Message, trial.Message, c.message)
			}
			if trial.Phase != benchv1.TrialFailed || trial.MeasureEnd == nil {
				t.Fatalf("trial %+v, want Failed after its start", trial)
			}
			// Failed within the deadline (and a few polls) of the cause, well inside its window.
			if !got.Status.FinishedAt.Time.Before(trial.MeasureEnd.Time.Add(-40 * time.Second)) {
				t.Errorf("failed at %v, its window ends at %v: not early", got.Status.FinishedAt, trial.MeasureEnd)
			}
			if c.waiting != nil {
				if !saidWhy {
					t.Errorf("while the trial waited, Complete never said %q", c.waiting)
				}
				events := &eventsv1.EventList{}
				if err := env.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
					t.Fatal(err)
				}
				named := 0
				for _, e := range events.Items {
					if e.Regarding.Name == run.Name && e.Reason == benchv1.ReasonLoadUnschedulable && e.Type == corev1.EventTypeWarning && contains(e.Note, c.waiting) {
						named++
					}
				}
				if named == 0 {
					t.Errorf("no %s event named the pod", benchv1.ReasonLoadUnschedulable)
				}
			}
			// The run's policy applies: its load stops and, with cleanup Always, every
			// object it made goes.
			waitNoLoad(t, got)
			waitGone(t, got)
		})
	}
}

// A generator-floor trial whose runner is OOM-killed costs the floor only: the trial fails
// naming the kill and the run goes on to measure its target.
func TestAnOOMKilledFloorRunnerCostsTheFloorOnly(t *testing.T) {
	testenv.Long(t)
	run := floorRun(t, "floor-oom", "oom", func(r *BenchmarkRunReconciler) {
		r.Timeouts.TrialFinish = 5 * time.Minute
	})
	ctx := context.Background()
	run.Spec.Load.Duration = "20s" // the floor's window: long enough to see it end early
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	fakes.script(run.Name, &k6Outcome{oomKillAfter: time.Second, hold: hold, target: plan.NullResponder})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	// The floor fails while its window is still open.
	mid := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].Phase == benchv1.TrialFailed
	})
	floor := mid.Status.Trials[0]
	if !floor.Calibration || !strings.Contains(floor.Message, "generator floor not measured: k6 runner pod") || !strings.Contains(floor.Message, "OOMKilled") {
		t.Fatalf("floor trial %+v: want the calibration trial failed for the OOM kill", floor)
	}
	if floor.MeasureEnd == nil || !time.Now().Before(floor.MeasureEnd.Time) {
		t.Errorf("the floor failed after its window's end (%v)", floor.MeasureEnd)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Trials[1].Phase != benchv1.TrialSucceeded {
		t.Errorf("phase %s, target trial %s %q: a failed floor costs the floor only", got.Status.Phase,
			got.Status.Trials[1].Phase, got.Status.Trials[1].Message)
	}
}

// contains says whether s holds every one of parts (none: true).
func contains(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
