package schedule

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// The schedule's runs: listed, the last good one and one in progress found, the finished
// ones past the history limits deleted, and their summary in the status.

// listRuns lists the schedule's runs, oldest scheduled first, and records the last good one
// (the next run's baseline).
func (r *BenchmarkScheduleReconciler) listRuns(ctx context.Context, sc *scope) error {
	s := sc.schedule
	runs := &benchv1.BenchmarkRunList{}
	if err := r.List(ctx, runs, client.InNamespace(s.Namespace), client.MatchingLabels{benchv1.LabelSchedule: s.Name}); err != nil {
		return err
	}
	// The label is anyone's to set: only the runs this schedule controls are its own to
	// baseline on, record, count and delete.
	runs.Items = slices.DeleteFunc(runs.Items, func(run benchv1.BenchmarkRun) bool { return !metav1.IsControlledBy(&run, s) })
	sc.runs = sortScheduled(runs.Items)
	s.Status.LastGoodRun = lastGoodRun(sc.runs, accepted(s, sc.runs))
	if pin := s.Spec.BaselineRun; pin != "" {
		if slices.ContainsFunc(sc.runs, func(run *benchv1.BenchmarkRun) bool {
			return run.Name == pin && run.Status.Phase == benchv1.PhaseSucceeded
		}) {
			s.Status.LastGoodRun = pin
		} else {
			r.Recorder.Eventf(s, nil, "Warning", ReasonBaselineRunMissing, "Baseline",
				"spec.baselineRun %s is not a run of this schedule that succeeded: comparing with the last good run", pin)
		}
	}
	return nil
}

// ReasonBaselineRunMissing: spec.baselineRun names no succeeded run of the schedule.
const ReasonBaselineRunMissing = "BaselineRunMissing"

// accepted are the runs spec.triage accepts as the new normal: baselines although Regressed.
// An accepted run the history limits already deleted (an alert is often triaged days later)
// is stood in for by the oldest succeeded run scheduled after it (a run's name gives its
// minute): the first run left at the new level.
func accepted(s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun) map[string]bool {
	out := map[string]bool{}
	for _, e := range s.Spec.Triage {
		if e.Action != benchv1.TriageAccept {
			continue
		}
		if slices.ContainsFunc(runs, func(r *benchv1.BenchmarkRun) bool { return r.Name == e.Run }) {
			out[e.Run] = true
			continue
		}
		minute, err := strconv.ParseInt(strings.TrimPrefix(e.Run, s.Name+"-"), 10, 64)
		if err != nil || !strings.HasPrefix(e.Run, s.Name+"-") {
			continue
		}
		for _, r := range runs { // oldest first
			if r.Status.Phase == benchv1.PhaseSucceeded && scheduledAt(r).Unix()/60 > minute {
				out[r.Name] = true
				break
			}
		}
	}
	return out
}

// prune deletes the finished runs past the history limits (never the next baseline); it
// comes after recordHistory, which has kept their figures.
func (r *BenchmarkScheduleReconciler) prune(ctx context.Context, sc *scope) error {
	s := sc.schedule
	old := pruneRuns(sc.runs, s.Status.LastGoodRun, historyLimit(s.Spec.SuccessfulRunsHistoryLimit, 5), historyLimit(s.Spec.FailedRunsHistoryLimit, 2))
	// A run whose figures the history database lacks (it was down) waits for them.
	old = slices.DeleteFunc(old, func(run *benchv1.BenchmarkRun) bool { return slices.Contains(sc.keep, run.Name) })
	for _, run := range old {
		if err := r.Delete(ctx, run); client.IgnoreNotFound(err) != nil {
			return err
		}
		r.Recorder.Eventf(s, run, "Normal", ReasonRunDeleted, "Prune", "deleted %s: beyond the history limit", run.Name)
		sc.runs = slices.DeleteFunc(sc.runs, func(x *benchv1.BenchmarkRun) bool { return x.Name == run.Name })
	}
	return nil
}

// MaxActiveRuns caps a schedule's runs in progress under concurrencyPolicy Allow: runs that
// never finish must not pile up one per scheduled time.
const MaxActiveRuns = 3

// maxStatusRuns is status.runs' CRD bound (MaxItems).
const maxStatusRuns = 110

// inProgress finds a run still in progress, and whether runs in progress hold new runs
// back: any one under Forbid, MaxActiveRuns under Allow, none under Replace (startRun
// deletes them).
func (r *BenchmarkScheduleReconciler) inProgress(_ context.Context, sc *scope) error {
	sc.active = activeScheduledRun(sc.runs)
	n := activeCount(sc.runs)
	switch policy := sc.schedule.Spec.ConcurrencyPolicy; {
	case sc.active == "" || policy == benchv1.ConcurrencyReplace:
	case policy != benchv1.ConcurrencyAllow:
		sc.forbidden, sc.held = true, "concurrencyPolicy Forbid"
	case n >= MaxActiveRuns:
		sc.forbidden, sc.held = true, fmt.Sprintf("%d runs in progress, the most concurrencyPolicy Allow starts", n)
	}
	return nil
}

func activeCount(runs []*benchv1.BenchmarkRun) int {
	n := 0
	for _, r := range runs {
		if !runDone(r) && r.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

func scheduledAt(run *benchv1.BenchmarkRun) time.Time {
	if t, err := time.Parse(time.RFC3339, run.Annotations[benchv1.AnnotationScheduledAt]); err == nil {
		return t
	}
	return run.CreationTimestamp.Time
}

// sortScheduled sorts the runs by scheduled time, oldest first.
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

// goodRun can be the next run's baseline: it succeeded, its rows support an answer (a run
// with no valid row would make every later verdict meaningless) and it did not regress.
func goodRun(run *benchv1.BenchmarkRun) bool {
	conclusive := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive)
	return run.Status.Phase == benchv1.PhaseSucceeded && (conclusive == nil || conclusive.Status != metav1.ConditionFalse) &&
		!meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionRegressed)
}

// lastGoodRun is the newest run that succeeded without regressing, or that was accepted
// (spec.triage) although it regressed.
func lastGoodRun(runs []*benchv1.BenchmarkRun, accepted map[string]bool) string {
	for i := len(runs) - 1; i >= 0; i-- {
		if goodRun(runs[i]) || (accepted[runs[i].Name] && runs[i].Status.Phase == benchv1.PhaseSucceeded) {
			return runs[i].Name
		}
	}
	return ""
}

// activeScheduledRun names a run still in progress.
func activeScheduledRun(runs []*benchv1.BenchmarkRun) string {
	for _, r := range runs {
		if !runDone(r) && r.DeletionTimestamp == nil {
			return r.Name
		}
	}
	return ""
}

// pruneRuns returns the finished runs beyond the limits, oldest first: succeeded runs beyond
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

// runStatuses are the newest maxStatusRuns runs' summaries, oldest first.
func runStatuses(runs []*benchv1.BenchmarkRun) []benchv1.ScheduledRun {
	if len(runs) > maxStatusRuns {
		runs = runs[len(runs)-maxStatusRuns:]
	}
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
