package schedule

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
)

// Starting a run: the chosen trigger's run made from the template, or its skip under Forbid.

// startRun starts the run chooseTrigger chose, or says which time or trigger a run in
// progress held back; under Replace it deletes the runs in progress first. A started run
// records the template, digests and request it runs, so none starts a second run.
func (r *BenchmarkScheduleReconciler) startRun(ctx context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	if sc.trigger == "" {
		return nil
	}
	if sc.forbidden {
		if !sc.due.IsZero() && startingDeadline(s) != nil {
			sc.waiting = sc.due // started when the run in progress finishes, if within the deadline
			return nil
		}
		r.skipped(sc)
		return nil
	}
	at := sc.due
	switch {
	case !at.IsZero():
	case sc.trigger == benchv1.TriggerManual:
		// Two requests in one minute are two runs; a retry finds its run by the request
		// (findRequest), not by its name.
		at = freeMinute(sc.runs, s.Name, sc.now)
	default: // a trigger between scheduled times: a retry in the same minute finds its run
		at = sc.now
	}
	run := newScheduledRun(s, at, st.LastGoodRun)
	run.Annotations[benchv1.AnnotationTrigger] = sc.trigger
	if sc.trigger == benchv1.TriggerManual {
		run.Annotations[benchv1.AnnotationRunNow] = sc.request
	}
	if s.Spec.ConcurrencyPolicy == benchv1.ConcurrencyReplace {
		if err := r.replace(ctx, sc, run.Name); err != nil {
			return err
		}
	}
	run, err := r.create(ctx, s, run, st.LastGoodRun)
	if err != nil {
		// The retry resolves the digests again: a moved image is not left to the next poll.
		st.LastDigestCheckTime = sc.original.Status.LastDigestCheckTime
		return err
	}
	if sc.why != "" {
		r.Recorder.Eventf(s, run, "Normal", ReasonTriggered, "Trigger", "started %s: %s", run.Name, sc.why)
	}
	sc.runs = append(sc.runs, run)
	st.LastTemplateHash = templateHash(s.Spec.Template)
	if sc.digests != nil {
		st.ImageDigests = sc.digests
	}
	if sc.trigger == benchv1.TriggerManual {
		st.LastRunRequest = requestKey(sc.request)
	}
	return nil
}

// freeMinute is now, or the first minute after it that names no run of the schedule.
func freeMinute(runs []*benchv1.BenchmarkRun, schedule string, now time.Time) time.Time {
	at := now
	for slices.ContainsFunc(runs, func(r *benchv1.BenchmarkRun) bool { return r.Name == runName(schedule, at) }) {
		at = at.Add(time.Minute)
	}
	return at
}

// runName is the name of the schedule's run of time at: the schedule's and the minute's.
func runName(schedule string, at time.Time) string {
	return fmt.Sprintf("%s-%d", schedule, at.Unix()/60)
}

// replace deletes the runs in progress (concurrencyPolicy Replace) before next is created;
// each run's own finalizer cleans up after it. next itself, found again by a retried pass,
// is not deleted.
func (r *BenchmarkScheduleReconciler) replace(ctx context.Context, sc *scope, next string) error {
	for _, run := range sc.runs {
		if runDone(run) || run.DeletionTimestamp != nil || run.Name == next {
			continue
		}
		if err := r.Delete(ctx, run); client.IgnoreNotFound(err) != nil {
			return err
		}
		r.Recorder.Eventf(sc.schedule, run, "Normal", ReasonRunReplaced, "Replace",
			"deleted %s, still in progress, to start %s (concurrencyPolicy Replace)", run.Name, next)
	}
	return nil
}

// skipped is the event of a time or trigger a run in progress held back (Forbid).
func (r *BenchmarkScheduleReconciler) skipped(sc *scope) {
	at := "a run triggered by " + sc.why
	if !sc.due.IsZero() {
		at = sc.due.UTC().Format(time.RFC3339)
	}
	r.Recorder.Eventf(sc.schedule, nil, "Normal", ReasonRunSkipped, "Schedule", "skipped %s: %s is still in progress (%s)", at, sc.active, sc.held)
}

// create makes run, controlled by the schedule and baselined on baseline. Its name is the
// schedule's and the time's, so a retried create after a lost status write finds it; a run
// of that name started for another gauntlet.dev/run-now value is an error (the next pass,
// listing it, picks another minute).
func (r *BenchmarkScheduleReconciler) create(ctx context.Context, s *benchv1.BenchmarkSchedule, run *benchv1.BenchmarkRun, baseline string) (*benchv1.BenchmarkRun, error) {
	if err := controllerutil.SetControllerReference(s, run, r.Scheme()); err != nil {
		return nil, err
	}
	if err := r.Create(ctx, run); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		found := &benchv1.BenchmarkRun{}
		if err := r.Get(ctx, client.ObjectKeyFromObject(run), found); err != nil {
			return nil, err
		}
		if want := run.Annotations[benchv1.AnnotationRunNow]; want != "" && found.Annotations[benchv1.AnnotationRunNow] != want {
			return nil, fmt.Errorf("run %s exists, started for another request: retrying under another name", run.Name)
		}
		return found, nil
	}
	note := "created " + run.Name + " without a baseline: no run has succeeded without regressing yet"
	if baseline != "" {
		note = "created " + run.Name + ", compared with " + baseline
	}
	r.Recorder.Eventf(s, run, "Normal", ReasonRunCreated, "Schedule", "%s", note)
	return run, nil
}

// newScheduledRun is the template's run for time at: labelled with the schedule, its spec
// the template's with spec.baseline.run the last good run (none without one, or when the
// template runs too few repetitions for a verdict).
func newScheduledRun(s *benchv1.BenchmarkSchedule, at time.Time, baseline string) *benchv1.BenchmarkRun {
	t := s.Spec.Template
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{
		Name:        runName(s.Name, at),
		Namespace:   s.Namespace,
		Labels:      map[string]string{},
		Annotations: map[string]string{},
	}}
	for k, v := range t.Labels {
		run.Labels[k] = v
	}
	for k, v := range t.Annotations {
		run.Annotations[k] = v
	}
	run.Labels[benchv1.LabelSchedule] = s.Name
	run.Annotations[benchv1.AnnotationScheduledAt] = at.UTC().Format(time.RFC3339)
	t.Spec.DeepCopyInto(&run.Spec)
	reps := run.Spec.Load.Repetitions
	if reps == 0 {
		reps = 3 // the schema's default
	}
	switch {
	case baseline == "" && run.Spec.Baseline != nil && compare.HasPairs(run):
		run.Spec.Baseline.Run = "" // the template's metric still judges its same-run pairs
	case baseline == "" || reps < compare.MinRepetitions:
		// Under 4 repetitions no row could reach a verdict (the API server would refuse the
		// comparison): the history's change points judge such a schedule's runs.
		run.Spec.Baseline = nil
	case run.Spec.Baseline == nil:
		run.Spec.Baseline = &benchv1.Baseline{Run: baseline}
	default:
		run.Spec.Baseline.Run = baseline
	}
	return run
}
