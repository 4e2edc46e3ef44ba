package schedule

import (
	"context"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The schedule's times: its cron read, the time due, and when to wake next.

// parseSchedule reads spec.schedule. One cron cannot read stalls the schedule (Stalled, the
// field named) and ends the pass: no time can be decided without it.
// A name or a schedule too short apart does the same.
func (r *BenchmarkScheduleReconciler) parseSchedule(_ context.Context, sc *scope) error {
	s := sc.schedule
	sched, err := cron.ParseStandard(s.Spec.Schedule)
	var msg string
	switch {
	case len(s.Name) > MaxNameLength:
		msg = fmt.Sprintf("metadata.name: %d characters, at most %d (it is the %s label value on each run)", len(s.Name), MaxNameLength, benchv1.LabelSchedule)
	case err != nil:
		msg = fmt.Sprintf("spec.schedule %q: %v", s.Spec.Schedule, err)
	default:
		if gap := closestGap(sched, sc.now); gap < MinInterval {
			msg = fmt.Sprintf("spec.schedule %q: times %s apart, at least %s (a run takes longer; faster would only pile up runs)", s.Spec.Schedule, gap, MinInterval)
		}
	}
	if msg != "" {
		r.Recorder.Eventf(s, nil, "Warning", ReasonInvalidSchedule, "Schedule", "%s", msg)
		setScheduleConditions(s, false, ReasonInvalidSchedule, msg)
		sc.stop = true
		return nil
	}
	sc.cron = sched
	return nil
}

// MinInterval is the shortest time between a schedule's times; MaxNameLength is the longest
// schedule name (a label value, 63 characters; the run and history ConfigMap names built
// from it then fit too).
const (
	MinInterval   = 30 * time.Second
	MaxNameLength = 63
)

// closestGap is the shortest time between sched's next 1,000 times after now: a whole day of
// a per-minute cron, or @every's delay.
func closestGap(sched cron.Schedule, now time.Time) time.Duration {
	if d, ok := sched.(cron.ConstantDelaySchedule); ok {
		return d.Delay
	}
	gap := time.Duration(1<<63 - 1)
	prev := sched.Next(now)
	for i := 0; i < 1000 && !prev.IsZero(); i++ {
		next := sched.Next(prev)
		if next.IsZero() {
			break
		}
		gap = min(gap, next.Sub(prev))
		prev = next
	}
	return gap
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
