package schedule

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// What a whole pass leaves in the status besides what its phases recorded on the way.

// summarize records the time acted on (a skipped one too; not while suspended: resuming
// starts the latest time missed; nor one waiting for a run in progress within its starting
// deadline), the runs, the next time, and Ready.
func (r *BenchmarkScheduleReconciler) summarize(_ context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	if !sc.due.IsZero() && !s.Spec.Suspend && sc.waiting.IsZero() {
		st.LastScheduleTime = &metav1.Time{Time: sc.due}
	}
	st.Runs = runStatuses(sc.runs)
	next := sc.cron.Next(sc.now)
	st.NextScheduleTime = &metav1.Time{Time: next}
	reason, msg := ReasonScheduled, "next run at "+next.UTC().Format(time.RFC3339)
	switch {
	case s.Spec.Suspend:
		reason, msg = ReasonSuspended, "spec.suspend is true: no new runs"
	case !sc.waiting.IsZero():
		msg = fmt.Sprintf("the run of %s waits for %s to finish (%s) until %s, spec.startingDeadlineSeconds after it; %s",
			sc.waiting.UTC().Format(time.RFC3339), sc.active, sc.held, sc.waiting.Add(*startingDeadline(s)).UTC().Format(time.RFC3339), msg)
	}
	setScheduleConditions(s, true, reason, msg)
	return nil
}

// setScheduleConditions sets Ready, and Stalled for kstatus (True when the spec cannot be
// acted on), with Reconciling False: a schedule is never mid-change.
func setScheduleConditions(s *benchv1.BenchmarkSchedule, ok bool, reason, msg string) {
	status := map[bool]metav1.ConditionStatus{true: metav1.ConditionTrue, false: metav1.ConditionFalse}
	set := func(typ string, v bool, reason, msg string) {
		meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: typ, Status: status[v], Reason: reason, Message: msg, ObservedGeneration: s.Generation})
	}
	set(benchv1.ConditionReady, ok, reason, msg)
	set(benchv1.ConditionStalled, !ok, reason, msg)
	set(benchv1.ConditionReconciling, false, reason, "")
}
