package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// The history store. A schedule's change points are found over its runs' figures, but its
// history limits delete old runs, and its status must stay small (every status write, every
// `kubectl get -o yaml`, and etcd's object limit carry it). So the figures of each run that
// succeeded are copied, before the run can be pruned, into a ConfigMap the schedule owns,
// <schedule>-history, key history.json: the newest HistoryMaxRuns runs, each at most
// HistoryMaxRows rows (target × scenario × load point, in that order) of at most four
// figures. That is about 60 × 32 × 4 numbers, some 300 KB of JSON at most, under a
// ConfigMap's 1 MiB; deleting the schedule deletes it (owner reference).
const (
	HistoryMaxRuns  = 60
	HistoryMaxRows  = 32
	MaxChangePoints = 20
	historyKey      = "history.json"
)

// Reasons of the Regressing condition.
const (
	ReasonSlowerChangePoint = "SlowerStep"
	ReasonNoSlowerChange    = "NoAlert"
)

// historyDoc is history.json.
type historyDoc struct {
	Runs []historyRun `json:"runs"`
}

// historyRun is one run's figures of record (history.Row: values in µs, or req/s for
// capacity) at its scheduled time.
type historyRun struct {
	Name string        `json:"name"`
	Time time.Time     `json:"time"`
	Rows []history.Row `json:"rows"`
	// Env is the run's environment in one line (compare.EnvironmentKey): a change point at
	// a run whose environment differs from the one before is flagged, not alerted on.
	Env string `json:"env,omitempty"`
}

// HistoryConfigMap names a schedule's history ConfigMap.
func HistoryConfigMap(schedule string) string { return schedule + "-history" }

// recordHistory copies the succeeded runs' figures into the history before prune may delete
// the runs, and finds the change points again only when the history changed (the analysis
// costs permutations × runs² per series); a new one is an event. Regressing follows them.
// With an Analyzer the analysis runs off the worker: this pass hands it over, and a later
// pass (the analyzer wakes it) writes what it found.
func (r *BenchmarkScheduleReconciler) recordHistory(ctx context.Context, sc *scope) error {
	s, st := sc.schedule, &sc.schedule.Status
	rec, err := r.store().record(ctx, s, sc.runs, sc)
	if errors.Is(err, errNotOwned) {
		// Someone else's ConfigMap: neither overwritten nor read; the runs go on.
		msg := fmt.Sprintf("ConfigMap %s exists and is not controlled by this schedule: no history is kept until it is removed", HistoryConfigMap(s.Name))
		r.Recorder.Eventf(s, nil, "Warning", ReasonHistoryNotOwned, "Record", "%s", msg)
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: benchv1.ConditionRegressing, Status: metav1.ConditionUnknown,
			Reason: ReasonHistoryNotOwned, Message: msg, ObservedGeneration: s.Generation})
		return nil
	}
	if err != nil && r.Database != nil {
		r.databaseDown(sc, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("history ConfigMap: %w", err)
	}
	sc.latest = rec.latest
	// A spec change (triage) is judged at once; otherwise the analysis runs again only when
	// the history changed (or, from the ConfigMap, someone else changed it).
	due := rec.changed || rec.fresh || s.Generation != st.ObservedGeneration
	stale := rec.held != nil && int(st.HistoryRuns) != len(rec.held)
	if r.Analyzer == nil {
		if due || stale {
			h, err := rec.load(ctx)
			if err != nil {
				r.databaseDown(sc, err)
				return nil
			}
			rep, err := analyzeHistory(h, s.Spec.Triage)
			if err != nil {
				return fmt.Errorf("change points: %w", err)
			}
			r.apply(sc, h, rep)
		}
		r.recovered(sc)
		setRegressing(s)
		return nil
	}
	key := client.ObjectKeyFromObject(s)
	if res, ok := r.Analyzer.take(key); ok {
		switch {
		case res.loadErr != nil:
			// Read again after the backoff, not at once.
			r.databaseDown(sc, res.loadErr)
			return nil
		case res.err != nil:
			return res.err
		}
		r.apply(sc, res.history, res.report)
	}
	if due || (stale && !r.Analyzer.pending(key)) {
		r.Analyzer.request(key, analysisRequest{load: rec.load, triage: slices.Clone(s.Spec.Triage),
			schedule: &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}})
	}
	r.recovered(sc)
	setRegressing(s)
	return nil
}

// apply writes an analysis of history h into the status: the change points (a new one is
// an event), the alerts, the history's size.
func (r *BenchmarkScheduleReconciler) apply(sc *scope, h []historyRun, rep *history.Report) {
	s, st := sc.schedule, &sc.schedule.Status
	cps := changePoints(rep, h, st.ChangePoints, sc.now)
	r.announce(s, cps)
	st.ChangePoints, st.HistoryRuns = cps, int32(len(h))
	st.Alerts = r.updateAlerts(s, h, rep, sc.now)
}

func toRuns(h []historyRun) []history.Run {
	runs := make([]history.Run, len(h))
	for i, x := range h {
		runs[i] = history.Run{Name: x.Name, Time: x.Time, Rows: x.Rows}
	}
	return runs
}

// announce is an event for each change point the status does not hold yet.
func (r *BenchmarkScheduleReconciler) announce(s *benchv1.BenchmarkSchedule, cps []benchv1.ScheduleChangePoint) {
	for _, c := range cps {
		if !slices.ContainsFunc(s.Status.ChangePoints, func(o benchv1.ScheduleChangePoint) bool { return sameChange(o, c) }) {
			r.Recorder.Eventf(s, nil, "Normal", ReasonChangePoint, "Analyze", "change point: %s %s %s %s from %s (p %s)",
				RowName(c), c.Figure, c.Direction, units.FormatSignedPPM(c.ChangePPM), c.Run, c.PValue)
		}
	}
}

// latestRows are the newest history run's figures: the schedule's figure gauges.
func latestRows(h []historyRun) []history.Row {
	if len(h) == 0 {
		return nil
	}
	return h[len(h)-1].Rows
}

// record adds every run that succeeded and is not in the history yet, keeps the newest
// HistoryMaxRuns, and writes the ConfigMap when that changed. It returns the history, oldest
// first, and whether it changed.
func (r *BenchmarkScheduleReconciler) record(ctx context.Context, s *benchv1.BenchmarkSchedule, runs []*benchv1.BenchmarkRun) ([]historyRun, bool, error) {
	cm := &corev1.ConfigMap{}
	key := metav1.ObjectMeta{Namespace: s.Namespace, Name: HistoryConfigMap(s.Name)}
	exists := true
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: key.Name}, cm); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, false, err
		}
		exists = false
		cm = &corev1.ConfigMap{ObjectMeta: key}
	}
	if exists && !metav1.IsControlledBy(cm, s) {
		return nil, false, errNotOwned
	}
	var doc historyDoc
	if raw := cm.Data[historyKey]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &doc); err != nil {
			// A ConfigMap someone broke starts over rather than stopping the schedule.
			doc = historyDoc{}
		}
	}
	// Namespace editors can write the ConfigMap: what it holds is re-validated and bounded
	// before it is analysed or exported, and written back cleaned.
	held, cleaned := cleanHistory(doc.Runs)
	runs2, changed := appendRuns(held, runs)
	changed = changed || cleaned
	if !changed && exists {
		return runs2, false, nil
	}
	data, err := json.Marshal(historyDoc{Runs: runs2})
	if err != nil {
		return nil, false, err
	}
	cm.Data = map[string]string{historyKey: string(data)}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels[benchv1.LabelSchedule] = s.Name
	if err := controllerutil.SetControllerReference(s, cm, r.Scheme()); err != nil {
		return nil, false, err
	}
	if exists {
		err = r.Update(ctx, cm)
	} else {
		err = r.Create(ctx, cm)
	}
	return runs2, changed, err
}

var errNotOwned = errors.New("history ConfigMap not controlled by the schedule")

// ReasonHistoryNotOwned: <schedule>-history exists and is someone else's.
const ReasonHistoryNotOwned = "HistoryNotOwned"

// cleanHistory keeps what the controller itself could have written: runs with a name seen
// once, at most HistoryMaxRuns (the newest), each with at most HistoryMaxRows distinct rows
// of known figures holding finite, non-negative values, with names that fit the status (the
// checks of internal/history, which the history store applies too). It says whether it
// dropped anything.
func cleanHistory(h []historyRun) ([]historyRun, bool) {
	dropped := false
	seen := map[string]bool{}
	out := make([]historyRun, 0, min(len(h), HistoryMaxRuns))
	for _, run := range h {
		if history.CheckRunName(run.Name) != nil || seen[run.Name] {
			dropped = true
			continue
		}
		seen[run.Name] = true
		keys := map[history.Key]bool{}
		var rows []history.Row
		for _, row := range run.Rows {
			if keys[row.Key] || len(rows) == HistoryMaxRows || history.CheckKey(row.Key) != nil {
				dropped = true
				continue
			}
			vals := map[string]float64{}
			for f, v := range row.Values {
				if history.CheckValue(f, v) == nil {
					vals[f] = v
				} else {
					dropped = true
				}
			}
			if len(vals) == 0 {
				continue
			}
			keys[row.Key] = true
			rows = append(rows, history.Row{Key: row.Key, Values: vals})
		}
		if len(rows) == 0 {
			dropped = true
			continue
		}
		out = append(out, historyRun{Name: run.Name, Time: run.Time, Rows: rows, Env: benchv1.Clip(run.Env, history.MaxEnvironment)})
	}
	if !slices.IsSortedFunc(out, func(a, b historyRun) int { return a.Time.Compare(b.Time) }) {
		slices.SortStableFunc(out, func(a, b historyRun) int { return a.Time.Compare(b.Time) })
		dropped = true
	}
	if len(out) > HistoryMaxRuns {
		out, dropped = out[len(out)-HistoryMaxRuns:], true
	}
	return out, dropped
}

// appendRuns adds the succeeded runs not yet in h, in scheduled-time order, keeping the
// newest HistoryMaxRuns; a run with no row of record is left out.
func appendRuns(h []historyRun, runs []*benchv1.BenchmarkRun) ([]historyRun, bool) {
	out := slices.Clone(h)
	changed := false
	for _, run := range runs {
		if run.Status.Phase != benchv1.PhaseSucceeded || slices.ContainsFunc(out, func(x historyRun) bool { return x.Name == run.Name }) {
			continue
		}
		rows := history.RunRows(run)
		if len(rows) == 0 {
			continue
		}
		if len(rows) > HistoryMaxRows {
			rows = rows[:HistoryMaxRows]
		}
		out = append(out, historyRun{Name: run.Name, Time: scheduledAt(run).UTC(), Rows: rows,
			Env: compare.EnvironmentKey(run.Status.Environment)})
		changed = true
	}
	if !changed {
		return out, false
	}
	slices.SortStableFunc(out, func(a, b historyRun) int { return a.Time.Compare(b.Time) })
	if len(out) > HistoryMaxRuns {
		out = out[len(out)-HistoryMaxRuns:]
	}
	return out, true
}

// changePoints are the report's change points newest first (by run, then row order), at
// most MaxChangePoints; one already in old keeps its DetectedAt.
func changePoints(rep *history.Report, h []historyRun, old []benchv1.ScheduleChangePoint, now time.Time) []benchv1.ScheduleChangePoint {
	type found struct {
		run int
		cp  benchv1.ScheduleChangePoint
	}
	var all []found
	for _, s := range rep.Series {
		for _, c := range s.ChangePoints {
			cp := toStatus(s, c, h, now)
			for _, o := range old {
				if sameChange(o, cp) {
					cp.DetectedAt = o.DetectedAt
				}
			}
			all = append(all, found{c.Run, cp})
		}
	}
	// Series come in row then figure order; newest run first, that order kept within a run.
	slices.SortStableFunc(all, func(a, b found) int { return b.run - a.run })
	out := make([]benchv1.ScheduleChangePoint, 0, min(len(all), MaxChangePoints))
	for i := 0; i < len(all) && i < MaxChangePoints; i++ {
		out = append(out, all[i].cp)
	}
	return out
}

// toStatus is a change (or an alert) of series s as the status holds it: no floats.
func toStatus(s history.Series, c history.Change, h []historyRun, now time.Time) benchv1.ScheduleChangePoint {
	at := metav1.NewTime(h[c.Run].Time)
	return benchv1.ScheduleChangePoint{Target: s.Target, Scenario: s.Scenario, LoadPoint: s.LoadPoint, Figure: s.Figure,
		Run: c.RunName, RunTime: &at, Direction: c.Direction,
		Before: int64(math.Round(c.Before)), After: int64(math.Round(c.After)),
		ChangePPM: int64(math.Round(c.ChangePercent * 1e4)), MagnitudePPM: int64(math.Round(c.Magnitude * 1e6)),
		PValue: formatP(c.PValue), Recent: c.Recent, DetectedAt: metav1.NewTime(now),
		EnvironmentChanged: environmentChange(h, c.Run)}
}

// environmentChange says how the environment of history run i differs from the one before
// it: "" when either recorded none (an older run) or both are the same.
func environmentChange(h []historyRun, i int) string {
	if i <= 0 || i >= len(h) || h[i].Env == "" || h[i-1].Env == "" || h[i].Env == h[i-1].Env {
		return ""
	}
	return benchv1.Clip(h[i-1].Env+" → "+h[i].Env, 512)
}

// formatP writes a p-value in at most 16 characters (the field's bound), small ones in
// exponent form.
func formatP(p float64) string {
	if p < 0.0001 {
		return strconv.FormatFloat(p, 'e', 2, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}
