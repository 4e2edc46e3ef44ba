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
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// Reasons of a schedule's events and conditions.
const (
	ReasonRunCreated      = "RunCreated"
	ReasonRunSkipped      = "RunSkipped"
	ReasonRunDeleted      = "RunDeleted"
	ReasonInvalidSchedule = "InvalidSchedule"
	ReasonSuspended       = "Suspended"
	ReasonScheduled       = "Scheduled"
	ReasonChangePoint     = "ChangePoint"
)

// BenchmarkScheduleReconciler creates a schedule's runs at its cron times.
type BenchmarkScheduleReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock

	// APIReader reads the history ConfigMaps uncached (a cache would watch every ConfigMap);
	// SetupWithManager sets the manager's when nil, and the Client is used without one.
	APIReader client.Reader
	// Images maps a preset to its image (the operator's specs.Config.Images), for
	// triggers.imageDigests; Resolver resolves them (RegistryResolver when nil).
	Images   map[string]string
	Resolver DigestResolver
	// Metrics is what the manager exports about each schedule (nil: nothing).
	Metrics *opmetrics.ScheduleStore

	skipNameValidation bool
}

// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/status,verbs=update;patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update

// Reconcile lists the schedule's runs, records them with their verdicts, copies the figures
// of those that succeeded into the history ConfigMap and finds its change points, deletes
// the runs past the history limits, starts the run of the latest scheduled time that has
// passed (once; earlier missed times are not caught up) or one spec.triggers asks for (a
// new image digest, a changed template) unless suspended or, under Forbid, while one is in
// progress, and asks to be woken at the next time or digest check.
func (r *BenchmarkScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &benchv1.BenchmarkSchedule{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil {
		if apierrors.IsNotFound(err) {
			r.Metrics.Forget(req.NamespacedName)
		}
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

	// The runs' figures go into the history before the limits may delete the runs; the
	// change points are found again only when the history changed (the analysis costs
	// permutations × runs² per series).
	hist, changed, err := r.record(ctx, s, items)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("history ConfigMap: %w", err)
	}
	if changed || int(st.HistoryRuns) != len(hist) {
		cps, err := changePoints(hist, st.ChangePoints, now)
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("change points: %w", err)
		}
		for _, c := range cps {
			if !slices.ContainsFunc(st.ChangePoints, func(o benchv1.ScheduleChangePoint) bool { return sameChange(o, c) }) {
				r.Recorder.Eventf(s, nil, "Normal", ReasonChangePoint, "Analyze", "change point: %s %s %s %s from %s (p %s)",
					RowName(c), c.Figure, c.Direction, units.FormatSignedPPM(c.ChangePPM), c.Run, c.PValue)
			}
		}
		st.ChangePoints, st.HistoryRuns = cps, int32(len(hist))
	}
	setRegressing(s)

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
	active := activeScheduledRun(items)
	forbidden := active != "" && s.Spec.ConcurrencyPolicy != benchv1.ConcurrencyAllow
	triggers := s.Spec.Triggers
	if triggers == nil {
		triggers = &benchv1.ScheduleTriggers{}
	}

	// Digests are resolved when the poll interval has passed, or for a run about to start
	// (a scheduled time, or a changed template, which may name other images: the run
	// records what it runs, so a commit that moves an image starts one run, not a second
	// for the "new" image at the next poll); not while a run in progress would hold a new
	// one back.
	var digests []benchv1.ImageDigest
	checkDue := st.LastDigestCheckTime == nil || !now.Before(st.LastDigestCheckTime.Add(pollInterval(s)))
	templateChanged := triggers.TemplateChanges && st.LastTemplateHash != "" && st.LastTemplateHash != templateHash(s.Spec.Template)
	if triggers.ImageDigests && !s.Spec.Suspend && !forbidden && (checkDue || !due.IsZero() || templateChanged) {
		st.LastDigestCheckTime = &metav1.Time{Time: now}
		if digests, err = r.resolveDigests(ctx, s); err != nil {
			r.Recorder.Eventf(s, nil, "Warning", ReasonDigestFailed, "Resolve", "triggers.imageDigests: %v", err)
			digests = nil
		} else if len(st.ImageDigests) == 0 {
			st.ImageDigests = digests // the first digests seen: recorded, no run
		}
	}
	if st.LastTemplateHash == "" {
		st.LastTemplateHash = templateHash(s.Spec.Template) // the first template seen: recorded, no run
	}
	trigger, why := "", ""
	switch {
	case s.Spec.Suspend:
	case !due.IsZero():
		trigger = benchv1.TriggerSchedule
	// The template first: a commit that changes an image also changes its digest.
	case templateChanged:
		trigger, why = benchv1.TriggerTemplateChange, "spec.template changed since the last run"
	case digests != nil && changedDigest(st.ImageDigests, digests) != "":
		trigger, why = benchv1.TriggerImageDigest, changedDigest(st.ImageDigests, digests)
	}

	reason, msg := ReasonScheduled, "next run at "+sched.Next(now).UTC().Format(time.RFC3339)
	switch {
	case s.Spec.Suspend:
		reason, msg = ReasonSuspended, "spec.suspend is true: no new runs"
	case trigger == "":
	case forbidden:
		at := "a run triggered by " + why
		if trigger == benchv1.TriggerSchedule {
			at = due.UTC().Format(time.RFC3339)
		}
		r.Recorder.Eventf(s, nil, "Normal", ReasonRunSkipped, "Schedule", "skipped %s: %s is still in progress (concurrencyPolicy Forbid)", at, active)
	default:
		at := due
		if trigger != benchv1.TriggerSchedule {
			at = now
		}
		run, err := r.create(ctx, s, at, st.LastGoodRun, trigger)
		if err != nil {
			return ctrl.Result{}, err
		}
		if why != "" {
			r.Recorder.Eventf(s, run, "Normal", ReasonTriggered, "Trigger", "started %s: %s", run.Name, why)
		}
		items = append(items, run)
		st.LastTemplateHash = templateHash(s.Spec.Template)
		if digests != nil {
			st.ImageDigests = digests
		}
	}
	if !due.IsZero() && !s.Spec.Suspend {
		st.LastScheduleTime = &metav1.Time{Time: due}
	}
	st.Runs = runStatuses(items)
	next := sched.Next(now)
	st.NextScheduleTime = &metav1.Time{Time: next}
	setScheduleConditions(s, true, reason, msg)
	if err := r.Status().Update(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	r.Metrics.Observe(s, latestRows(hist))
	if s.Spec.Suspend || next.IsZero() {
		return ctrl.Result{}, nil
	}
	wait := next.Sub(now)
	if triggers.ImageDigests && st.LastDigestCheckTime != nil {
		wait = min(wait, max(st.LastDigestCheckTime.Add(pollInterval(s)).Sub(now), time.Second))
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// latestRows are the newest history run's figures: the schedule's figure gauges.
func latestRows(h []historyRun) []history.Row {
	if len(h) == 0 {
		return nil
	}
	return h[len(h)-1].Rows
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

func (r *BenchmarkScheduleReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
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
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkSchedule{}).Owns(&benchv1.BenchmarkRun{}).
		WithOptions(controller.Options{SkipNameValidation: &r.skipNameValidation}).
		Named("benchmarkschedule").Complete(r)
}
