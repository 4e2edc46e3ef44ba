package schedule

// The alerts a schedule holds in status.alerts, their triage (spec.triage) and the
// Regressing condition they set.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// Reasons of the alert events.
const (
	ReasonRegression        = "Regression"
	ReasonRegressionCleared = "RegressionCleared"
)

// updateAlerts keeps each alert of the status until spec.triage matches it or it is undone
// (the newest runs of its series back nearer the old level than the new one; a series no
// longer measured ends it too), then adds the report's alerts of the series that hold none,
// unless triaged, at most MaxChangePoints in all, oldest first. Each change is an event.
func (r *BenchmarkScheduleReconciler) updateAlerts(s *benchv1.BenchmarkSchedule, h []historyRun, rep *history.Report, now time.Time) []benchv1.ScheduleChangePoint {
	var out []benchv1.ScheduleChangePoint
	for _, a := range s.Status.Alerts {
		why := ""
		switch recent := newest(h, a, history.DefaultMinRuns); {
		case triaged(s.Spec.Triage, a) != nil:
			why = "spec.triage " + strings.ToLower(triaged(s.Spec.Triage, a).Action) + "s it"
		case len(recent) == 0:
			why = "the row's figure is no longer measured"
		case math.Abs(mean(recent)-float64(a.Before)) < math.Abs(float64(a.After-a.Before))/2:
			why = fmt.Sprintf("the newest %d runs are back near the old level", len(recent))
		}
		if why != "" {
			r.Recorder.Eventf(s, nil, "Normal", ReasonRegressionCleared, "Analyze", "%s %s from %s cleared: %s", RowName(a), a.Figure, a.Run, why)
			continue
		}
		out = append(out, a)
	}
	for _, ser := range rep.Series {
		if ser.Alert == nil || len(out) >= MaxChangePoints {
			continue
		}
		a := toStatus(ser, *ser.Alert, h, now)
		if slices.ContainsFunc(out, func(o benchv1.ScheduleChangePoint) bool { return sameSeries(o, a) }) || triaged(s.Spec.Triage, a) != nil {
			continue
		}
		r.Recorder.Eventf(s, nil, "Warning", ReasonRegression, "Analyze", "%s %s %s from %s, %d runs at the new level (p %s)",
			RowName(a), a.Figure, units.FormatSignedPPM(a.ChangePPM), a.Run, ser.Alert.RunsAfter, a.PValue)
		out = append(out, a)
	}
	return out
}

// newest is the series' values in the newest n history runs that measured it.
func newest(h []historyRun, a benchv1.ScheduleChangePoint, n int) []float64 {
	var out []float64
	for i := len(h) - 1; i >= 0 && len(out) < n; i-- {
		for _, row := range h[i].Rows {
			if row.Target == a.Target && row.Scenario == a.Scenario && row.LoadPoint == a.LoadPoint {
				if v, ok := row.Values[a.Figure]; ok {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// triaged is the first spec.triage entry that matches the alert.
func triaged(t []benchv1.ScheduleTriage, a benchv1.ScheduleChangePoint) *benchv1.ScheduleTriage {
	for i, e := range t {
		if e.Run == a.Run && matches(e, a.Target, a.Scenario, a.LoadPoint, a.Figure) {
			return &t[i]
		}
	}
	return nil
}

func matches(e benchv1.ScheduleTriage, target, scenario string, loadPoint int32, figure string) bool {
	return (e.Target == "" || e.Target == target) && (e.Scenario == "" || e.Scenario == scenario) &&
		(e.LoadPoint == nil || *e.LoadPoint == loadPoint) && (e.Figure == "" || e.Figure == figure)
}

// triageFloor is, per series, the history index of the newest triaged run that matches it:
// its alert reads the old level from there on, so a triaged step does not alert again.
func triageFloor(t []benchv1.ScheduleTriage, h []historyRun) func(history.Key, string) int {
	if len(t) == 0 {
		return nil
	}
	return func(k history.Key, figure string) int {
		floor := 0
		for _, e := range t {
			if !matches(e, k.Target, k.Scenario, k.LoadPoint, figure) {
				continue
			}
			if i := slices.IndexFunc(h, func(x historyRun) bool { return x.Name == e.Run }); i > floor {
				floor = i
			}
		}
		return floor
	}
}

func sameSeries(a, b benchv1.ScheduleChangePoint) bool {
	return a.Target == b.Target && a.Scenario == b.Scenario && a.LoadPoint == b.LoadPoint && a.Figure == b.Figure
}

func sameChange(a, b benchv1.ScheduleChangePoint) bool {
	return a.Target == b.Target && a.Scenario == b.Scenario && a.LoadPoint == b.LoadPoint && a.Figure == b.Figure && a.Run == b.Run && a.Direction == b.Direction
}

// RowName is a change point's row as gauntlet history prints it: target/scenario@load.
func RowName(c benchv1.ScheduleChangePoint) string {
	row := c.Target + "/" + c.Scenario
	if c.LoadPoint != 0 {
		row += "@" + strconv.Itoa(int(c.LoadPoint))
	}
	return row
}

// setRegressing sets Regressing: True while the status holds an alert, naming them; False
// otherwise. A HistoryNotOwned Unknown is recordHistory's.
func setRegressing(s *benchv1.BenchmarkSchedule) {
	var slower, elsewhere []string
	for _, c := range s.Status.Alerts {
		line := fmt.Sprintf("%s %s %s from %s (p %s)", RowName(c), c.Figure, units.FormatSignedPPM(c.ChangePPM), c.Run, c.PValue)
		if c.EnvironmentChanged != "" {
			elsewhere = append(elsewhere, line+", where the environment changed: "+c.EnvironmentChanged)
			continue
		}
		slower = append(slower, line)
	}
	cond := metav1.Condition{Type: benchv1.ConditionRegressing, Status: metav1.ConditionFalse, Reason: ReasonNoSlowerChange,
		Message:            fmt.Sprintf("no alert over the %d runs in the history", s.Status.HistoryRuns),
		ObservedGeneration: s.Generation}
	if len(elsewhere) > 0 && len(slower) == 0 {
		cond.Status, cond.Reason = metav1.ConditionUnknown, benchv1.ReasonEnvironmentChanged
		cond.Message = "slower where the machines or software changed, not judged; triage (spec.triage) accepts it: " + strings.Join(elsewhere, "; ")
		if len(cond.Message) > 1024 {
			cond.Message = cond.Message[:1021] + "..."
		}
	}
	if len(slower) > 0 {
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonSlowerChangePoint
		cond.Message = "slower, until triaged (spec.triage) or undone: " + strings.Join(slower, "; ")
		if len(cond.Message) > 1024 {
			cond.Message = cond.Message[:1021] + "..."
		}
	}
	meta.SetStatusCondition(&s.Status.Conditions, cond)
}
