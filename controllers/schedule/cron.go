package schedule

import (
	"context"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	ctrl "sigs.k8s.io/controller-runtime"
)

// The schedule's times: its cron read, the time due, and when to wake next.

// parseSchedule reads spec.schedule. One cron cannot read stalls the schedule (Stalled, the
// field named) and ends the pass: no time can be decided without it.
func (r *BenchmarkScheduleReconciler) parseSchedule(_ context.Context, sc *scope) error {
	s := sc.schedule
	sched, err := cron.ParseStandard(s.Spec.Schedule)
	if err != nil {
		msg := fmt.Sprintf("spec.schedule %q: %v", s.Spec.Schedule, err)
		r.Recorder.Eventf(s, nil, "Warning", ReasonInvalidSchedule, "Schedule", "%s", msg)
		setScheduleConditions(s, false, ReasonInvalidSchedule, msg)
		sc.stop = true
		return nil
	}
	sc.cron = sched
	return nil
}

// dueTime finds the latest scheduled time since the last one acted on (or the schedule's
// creation): one run for it, earlier missed times are not caught up.
func (r *BenchmarkScheduleReconciler) dueTime(_ context.Context, sc *scope) error {
	s := sc.schedule
	last := s.CreationTimestamp.Time
	if s.Status.LastScheduleTime != nil {
		last = s.Status.LastScheduleTime.Time
	}
	sc.due = latestDue(sc.cron, last, sc.now)
	return nil
}

// latestDue is sched's latest time in (last, now], zero when none.
func latestDue(sched cron.Schedule, last, now time.Time) time.Time {
	var due time.Time
	// Bounded: a schedule every minute a year behind is 525,600 steps, well under a second.
	for i, t := 0, sched.Next(last); i < 1_000_000 && !t.IsZero() && !t.After(now); i, t = i+1, sched.Next(t) {
		due = t
	}
	return due
}

// requeue wakes the schedule at its next time, or sooner at its next digest check (at least
// a second away); a suspended schedule, or one with no next time, waits for a change.
func (r *BenchmarkScheduleReconciler) requeue(_ context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	next := sc.cron.Next(sc.now)
	if s.Spec.Suspend || next.IsZero() {
		return nil
	}
	wait := next.Sub(sc.now)
	if sc.triggers.ImageDigests && st.LastDigestCheckTime != nil {
		wait = min(wait, max(st.LastDigestCheckTime.Add(pollInterval(s)).Sub(sc.now), time.Second))
	}
	sc.result = ctrl.Result{RequeueAfter: wait}
	return nil
}
