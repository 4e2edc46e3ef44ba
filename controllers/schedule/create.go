package schedule

import (
	"context"
	"fmt"
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
// progress held back. A started run records the template and digests it runs, so neither
// starts a second run.
func (r *BenchmarkScheduleReconciler) startRun(ctx context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	if sc.trigger == "" {
		return nil
	}
	if sc.forbidden {
		r.skipped(sc)
		return nil
	}
	at := sc.due
	if at.IsZero() { // a trigger between scheduled times
		at = sc.now
	}
	run, err := r.create(ctx, s, at, st.LastGoodRun, sc.trigger)
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

// create makes the run of scheduled time at, baselined on the last good run. Its name is
// the schedule's and the time's, so a retried create after a lost status write finds it.
func (r *BenchmarkScheduleReconciler) create(ctx context.Context, s *benchv1.BenchmarkSchedule, at time.Time, baseline, trigger string) (*benchv1.BenchmarkRun, error) {
	run := newScheduledRun(s, at, baseline)
	run.Annotations[benchv1.AnnotationTrigger] = trigger
	if err := controllerutil.SetControllerReference(s, run, r.Scheme()); err != nil {
		return nil, err
	}
	if err := r.Create(ctx, run); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		return run, r.Get(ctx, client.ObjectKeyFromObject(run), run)
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
		Name:        fmt.Sprintf("%s-%d", s.Name, at.Unix()/60),
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
