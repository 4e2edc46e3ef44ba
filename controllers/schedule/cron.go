package schedule

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/schedtime"
)

// The schedule's times: its cron read, the time due, and when to wake next.

// parseSchedule reads spec.schedule in spec.timeZone. A cron that cannot be read, a zone
// the time zone database does not know, times too close or a name too long stall the
// schedule (Stalled, the field named: the same checks as gauntlet validate) and end the
// pass: no time can be decided.
func (r *BenchmarkScheduleReconciler) parseSchedule(_ context.Context, sc *scope) error {
	s := sc.schedule
	sched, errs := schedtime.Check(s.Name, &s.Spec, sc.now)
	if len(errs) > 0 {
		msg := errs[0].Error()
		r.Recorder.Eventf(s, nil, "Warning", ReasonInvalidSchedule, "Schedule", "%s", msg)
		setScheduleConditions(s, false, ReasonInvalidSchedule, msg)
		sc.stop = true
		return nil
	}
	sc.cron = sched
	return nil
}

// MinInterval is the shortest time between a schedule's times; MaxNameLength is the longest
// schedule name.
const (
	MinInterval   = schedtime.MinInterval
	MaxNameLength = schedtime.MaxNameLength
)

// dueTime finds the latest scheduled time since the last one acted on (or the schedule's
// creation): one run for it, earlier missed times are not caught up. With
// spec.startingDeadlineSeconds the times later than that are skipped and counted instead
// (not while suspended: resuming decides).
func (r *BenchmarkScheduleReconciler) dueTime(_ context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	last := s.CreationTimestamp.Time
	if st.LastScheduleTime != nil {
		last = st.LastScheduleTime.Time
	}
	due := schedtime.DueAt(sc.cron, last, sc.now, startingDeadline(s))
	sc.due = due.Run
	if due.Missed > 0 && !s.Spec.Suspend {
		// Recorded as acted on, so no later pass counts them again (summarize moves it on to
		// the time run, when one is).
		st.MissedScheduleTimes += due.Missed
		st.LastScheduleTime = &metav1.Time{Time: due.LastMissed}
		r.Recorder.Eventf(s, nil, "Warning", ReasonMissedSchedule, "Schedule",
			"skipped %d scheduled time(s), the latest %s: not started within spec.startingDeadlineSeconds (%d)",
			due.Missed, due.LastMissed.UTC().Format(time.RFC3339), *s.Spec.StartingDeadlineSeconds)
	}
	return nil
}

// startingDeadline is spec.startingDeadlineSeconds, nil when unset.
func startingDeadline(s *benchv1.BenchmarkSchedule) *time.Duration {
	if s.Spec.StartingDeadlineSeconds == nil {
		return nil
	}
	d := time.Duration(*s.Spec.StartingDeadlineSeconds) * time.Second
	return &d
}

// requeue wakes the schedule at its next time, or sooner at its next digest check (at least
// a second away), or when a time held back under Forbid passes its starting deadline; a
// suspended schedule, or one with no next time, waits for a change.
func (r *BenchmarkScheduleReconciler) requeue(_ context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	defer func() {
		// The history database's retry, sooner than the next time.
		if sc.retry > 0 && (sc.result.RequeueAfter == 0 || sc.retry < sc.result.RequeueAfter) {
			sc.result = ctrl.Result{RequeueAfter: sc.retry}
		}
	}()
	next := sc.cron.Next(sc.now)
	if s.Spec.Suspend || next.IsZero() {
		return nil
	}
	wait := next.Sub(sc.now)
	if sc.triggers.ImageDigests && st.LastDigestCheckTime != nil {
		wait = min(wait, max(st.LastDigestCheckTime.Add(pollInterval(s)).Sub(sc.now), time.Second))
	}
	if !sc.waiting.IsZero() {
		wait = min(wait, max(sc.waiting.Add(*startingDeadline(s)+time.Second).Sub(sc.now), time.Second))
	}
	sc.result = ctrl.Result{RequeueAfter: wait}
	return nil
}
