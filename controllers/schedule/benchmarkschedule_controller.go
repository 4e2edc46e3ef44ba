// Package schedule is the BenchmarkSchedule controller: it creates a schedule's runs at its
// cron times, each compared with the last good run, and keeps their history.
package schedule

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Reasons of a schedule's events and conditions.
const (
	ReasonRunCreated      = "RunCreated"
	ReasonRunSkipped      = "RunSkipped"
	ReasonRunDeleted      = "RunDeleted"
	ReasonInvalidSchedule = "InvalidSchedule"
	ReasonSuspended       = "Suspended"
	ReasonScheduled       = "Scheduled"
)

// BenchmarkScheduleReconciler creates a schedule's runs at its cron times.
type BenchmarkScheduleReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock

	skipNameValidation bool
}

// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/status,verbs=update;patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;create;delete

// Reconcile lists the schedule's runs, records them with their verdicts, deletes those past
// the history limits, starts the run of the latest scheduled time that has passed (once;
// earlier missed times are not caught up) unless suspended or, under Forbid, while one is in
// progress, and asks to be woken at the next time.
func (r *BenchmarkScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &benchv1.BenchmarkSchedule{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	now := r.Clock.Now()
	st := &s.Status
	st.ObservedGeneration = s.Generation
	sched, err := cron.ParseStandard(s.Spec.Schedule)
	if err != nil {
		msg := fmt.Sprintf("spec.schedule %q: %v", s.Spec.Schedule, err)
		r.Recorder.Eventf(s, nil, "Warning", ReasonInvalidSchedule, "Schedule", "%s", msg)
		setScheduleConditions(s, false, ReasonInvalidSchedule, msg)
		return ctrl.Result{}, r.Status().Update(ctx, s)
	}

	runs := &benchv1.BenchmarkRunList{}
	if err := r.List(ctx, runs, client.InNamespace(s.Namespace), client.MatchingLabels{benchv1.LabelSchedule: s.Name}); err != nil {
		return ctrl.Result{}, err
	}
	items := sortScheduled(runs.Items)
	st.LastGoodRun = lastGoodRun(items)
	for _, run := range pruneRuns(items, st.LastGoodRun, historyLimit(s.Spec.SuccessfulRunsHistoryLimit, 5), historyLimit(s.Spec.FailedRunsHistoryLimit, 2)) {
		if err := r.Delete(ctx, run); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		r.Recorder.Eventf(s, run, "Normal", ReasonRunDeleted, "Prune", "deleted %s: beyond the history limit", run.Name)
		items = slices.DeleteFunc(items, func(x *benchv1.BenchmarkRun) bool { return x.Name == run.Name })
	}

	// The latest scheduled time in (last, now], if any.
	last := s.CreationTimestamp.Time
	if st.LastScheduleTime != nil {
		last = st.LastScheduleTime.Time
	}
	var due time.Time
	// Bounded: a schedule every minute a year behind is 525,600 steps, well under a second.
	for i, t := 0, sched.Next(last); i < 1_000_000 && !t.IsZero() && !t.After(now); i, t = i+1, sched.Next(t) {
		due = t
	}
	reason, msg := ReasonScheduled, "next run at "+sched.Next(now).UTC().Format(time.RFC3339)
	switch {
	case s.Spec.Suspend:
		reason, msg = ReasonSuspended, "spec.suspend is true: no new runs"
	case !due.IsZero():
		if active := activeScheduledRun(items); active != "" && s.Spec.ConcurrencyPolicy != benchv1.ConcurrencyAllow {
			r.Recorder.Eventf(s, nil, "Normal", ReasonRunSkipped, "Schedule", "skipped %s: %s is still in progress (concurrencyPolicy Forbid)",
				due.UTC().Format(time.RFC3339), active)
		} else {
			run, err := r.create(ctx, s, due, st.LastGoodRun)
			if err != nil {
				return ctrl.Result{}, err
			}
			items = append(items, run)
		}
		st.LastScheduleTime = &metav1.Time{Time: due}
	}
	st.Runs = runStatuses(items)
	next := sched.Next(now)
	st.NextScheduleTime = &metav1.Time{Time: next}
	setScheduleConditions(s, true, reason, msg)
	if err := r.Status().Update(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.Spec.Suspend || next.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: next.Sub(now)}, nil
}

// create makes the run of scheduled time at, baselined on the last good run. Its name is
// the schedule's and the time's, so a retried create after a lost status write finds it.
func (r *BenchmarkScheduleReconciler) create(ctx context.Context, s *benchv1.BenchmarkSchedule, at time.Time, baseline string) (*benchv1.BenchmarkRun, error) {
	run := newScheduledRun(s, at, baseline)
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
// the template's with spec.baseline.run the last good run (none without one).
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
	switch {
	case baseline == "":
		run.Spec.Baseline = nil
	case run.Spec.Baseline == nil:
		run.Spec.Baseline = &benchv1.Baseline{Run: baseline}
	default:
		run.Spec.Baseline.Run = baseline
	}
	return run
}

func scheduledAt(run *benchv1.BenchmarkRun) time.Time {
	if t, err := time.Parse(time.RFC3339, run.Annotations[benchv1.AnnotationScheduledAt]); err == nil {
		return t
	}
	return run.CreationTimestamp.Time
}

// scheduledRuns sorts the runs by scheduled time, oldest first.
func sortScheduled(list []benchv1.BenchmarkRun) []*benchv1.BenchmarkRun {
	out := make([]*benchv1.BenchmarkRun, 0, len(list))
	for i := range list {
		out = append(out, &list[i])
	}
	slices.SortStableFunc(out, func(a, b *benchv1.BenchmarkRun) int { return scheduledAt(a).Compare(scheduledAt(b)) })
	return out
}

func runDone(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed
}

func goodRun(run *benchv1.BenchmarkRun) bool {
	return run.Status.Phase == benchv1.PhaseSucceeded && !meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionRegressed)
}

// lastGood is the newest run that succeeded without regressing.
func lastGoodRun(runs []*benchv1.BenchmarkRun) string {
	for i := len(runs) - 1; i >= 0; i-- {
		if goodRun(runs[i]) {
			return runs[i].Name
		}
	}
	return ""
}

// activeRun names a run still in progress.
func activeScheduledRun(runs []*benchv1.BenchmarkRun) string {
	for _, r := range runs {
		if !runDone(r) && r.DeletionTimestamp == nil {
			return r.Name
		}
	}
	return ""
}

// prune returns the finished runs beyond the limits, oldest first: succeeded runs beyond
// keepOK, failed ones beyond keepFailed; never keep, the next baseline.
func pruneRuns(runs []*benchv1.BenchmarkRun, keep string, keepOK, keepFailed int) []*benchv1.BenchmarkRun {
	var ok, failed []*benchv1.BenchmarkRun
	for _, r := range runs {
		switch {
		case r.Name == keep || !runDone(r):
		case r.Status.Phase == benchv1.PhaseSucceeded:
			ok = append(ok, r)
		default:
			failed = append(failed, r)
		}
	}
	var out []*benchv1.BenchmarkRun
	// The kept baseline counts within the succeeded limit.
	if keep != "" && keepOK > 0 {
		keepOK--
	}
	if len(ok) > keepOK {
		out = append(out, ok[:len(ok)-keepOK]...)
	}
	if len(failed) > keepFailed {
		out = append(out, failed[:len(failed)-keepFailed]...)
	}
	return out
}

func runStatuses(runs []*benchv1.BenchmarkRun) []benchv1.ScheduledRun {
	out := make([]benchv1.ScheduledRun, 0, len(runs))
	for _, r := range runs {
		sr := benchv1.ScheduledRun{Name: r.Name, ScheduledTime: metav1.Time{Time: scheduledAt(r)}, Phase: r.Status.Phase, Headline: r.Status.Headline}
		if r.Spec.Baseline != nil {
			sr.Baseline = r.Spec.Baseline.Run
		}
		if c := meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionRegressed); c != nil {
			sr.Regressed = c.Status
		}
		out = append(out, sr)
	}
	return out
}

func historyLimit(p *int32, def int) int {
	if p == nil {
		return def
	}
	return int(*p)
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

// SetupWithManager watches schedules and the runs they own: a run finishing wakes its
// schedule (a skipped time, the last good run, the history limits).
func (r *BenchmarkScheduleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkSchedule{}).Owns(&benchv1.BenchmarkRun{}).
		WithOptions(controller.Options{SkipNameValidation: &r.skipNameValidation}).
		Named("benchmarkschedule").Complete(r)
}
