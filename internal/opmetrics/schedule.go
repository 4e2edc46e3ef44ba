package opmetrics

import (
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// Metric names of a BenchmarkSchedule's history (base units); dashboards/schedule-history.json
// and the chart's PrometheusRule read them.
const (
	MetricScheduleFigure       = "gauntlet_schedule_figure"
	MetricChangePointTimestamp = "gauntlet_schedule_change_point_timestamp_seconds"
	MetricChangePointMagnitude = "gauntlet_schedule_change_point_magnitude_ratio"
	MetricChangePointChange    = "gauntlet_schedule_change_point_change_ratio"
	MetricChangePointRecent    = "gauntlet_schedule_change_point_recent"
	MetricScheduleRegressing   = "gauntlet_schedule_regressing"
	MetricScheduleHistoryRuns  = "gauntlet_schedule_history_runs"
	MetricScheduleAlert        = "gauntlet_schedule_alert_change_ratio"
	MetricScheduleMissed       = "gauntlet_schedule_missed_runs_total"
)

var (
	scheduleLabels = []string{"namespace", "schedule"}
	figureLabels   = []string{"namespace", "schedule", "target", "scenario", "load_point", "figure"}
	// run tells two change points of the same row, figure and direction apart; it is one of
	// at most 20 (status.changePoints).
	changeLabels = []string{"namespace", "schedule", "target", "scenario", "load_point", "figure", "direction", "run"}
	// An alert is one per row and figure (status.alerts); run is its first run.
	alertLabels = []string{"namespace", "schedule", "target", "scenario", "load_point", "figure", "run"}

	descScheduleFigure = prometheus.NewDesc(MetricScheduleFigure,
		"The newest run's figure of record in the schedule's history: p50, p99 and cpuPerRequest in seconds, capacity in requests per second.", figureLabels, nil)
	descCPTimestamp = prometheus.NewDesc(MetricChangePointTimestamp,
		"Scheduled time of the first run at a change point's new level (status.changePoints), in Unix seconds.", changeLabels, nil)
	descCPMagnitude = prometheus.NewDesc(MetricChangePointMagnitude,
		"Otava's relative magnitude of the change point: the larger of |after/before - 1| and |before/after - 1|.", changeLabels, nil)
	descCPChange = prometheus.NewDesc(MetricChangePointChange,
		"The change point's after/before - 1 (signed).", changeLabels, nil)
	descCPRecent = prometheus.NewDesc(MetricChangePointRecent,
		"1 when the change point starts within the newest runs of the history (a Slower one sets Regressing), 0 when older.", changeLabels, nil)
	descRegressing = prometheus.NewDesc(MetricScheduleRegressing,
		"1 while the schedule's Regressing condition is True.", scheduleLabels, nil)
	descAlert = prometheus.NewDesc(MetricScheduleAlert,
		"An alert of the schedule (status.alerts: a confirmed step to a worse level, not triaged nor undone): its after/before - 1.", alertLabels, nil)
	descHistoryRuns = prometheus.NewDesc(MetricScheduleHistoryRuns,
		"Runs in the schedule's history (status.historyRuns): its ConfigMap, or the history database within the retention.", scheduleLabels, nil)
	descMissed = prometheus.NewDesc(MetricScheduleMissed,
		"Scheduled times the schedule skipped for starting later than spec.startingDeadlineSeconds after them (status.missedScheduleTimes).", scheduleLabels, nil)
)

// ScheduleStore holds, per BenchmarkSchedule, its change points (bounded by the status list)
// and its newest run's figures (bounded by the history's rows), for the metrics endpoint.
// A nil *ScheduleStore records nothing.
type ScheduleStore struct {
	mu        sync.RWMutex
	schedules map[types.NamespacedName]scheduleSnapshot
}

type scheduleSnapshot struct {
	changePoints []benchv1.ScheduleChangePoint
	alerts       []benchv1.ScheduleChangePoint
	rows         []history.Row
	regressing   bool
	historyRuns  int32
	missed       int64
}

// NewScheduleStore returns an empty ScheduleStore; register it with MustRegister.
func NewScheduleStore() *ScheduleStore {
	return &ScheduleStore{schedules: map[types.NamespacedName]scheduleSnapshot{}}
}

// Observe records the schedule's change points and its newest run's rows.
func (s *ScheduleStore) Observe(sched *benchv1.BenchmarkSchedule, latest []history.Row) {
	if s == nil || sched == nil {
		return
	}
	snap := scheduleSnapshot{historyRuns: sched.Status.HistoryRuns, missed: sched.Status.MissedScheduleTimes, rows: make([]history.Row, len(latest))}
	snap.changePoints = append(snap.changePoints, sched.Status.ChangePoints...)
	snap.alerts = append(snap.alerts, sched.Status.Alerts...)
	for i, r := range latest {
		snap.rows[i] = history.Row{Key: r.Key, Values: maps.Clone(r.Values)}
	}
	snap.regressing = meta.IsStatusConditionTrue(sched.Status.Conditions, benchv1.ConditionRegressing)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.schedules[types.NamespacedName{Namespace: sched.Namespace, Name: sched.Name}] = snap
}

// Forget drops a schedule's series: call it when the schedule is deleted.
func (s *ScheduleStore) Forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.schedules, key)
}

// Describe sends every metric's description.
func (s *ScheduleStore) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descScheduleFigure, descCPTimestamp, descCPMagnitude, descCPChange, descCPRecent, descRegressing, descHistoryRuns, descAlert, descMissed} {
		ch <- d
	}
}

// Collect renders the schedules held now.
func (s *ScheduleStore) Collect(ch chan<- prometheus.Metric) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for key, snap := range s.schedules {
		ch <- gauge(descRegressing, oneIf(snap.regressing), key.Namespace, key.Name)
		ch <- gauge(descHistoryRuns, float64(snap.historyRuns), key.Namespace, key.Name)
		// A count the status keeps across restarts, so a counter: rate() and increase() read
		// a missed night whichever manager replica saw it.
		ch <- prometheus.MustNewConstMetric(descMissed, prometheus.CounterValue, float64(snap.missed), key.Namespace, key.Name)
		// A row twice (the history ConfigMap is tenant-writable) would be a duplicate series,
		// which fails the whole endpoint for every schedule: the first is exported.
		rowSeen := map[history.Key]bool{}
		for _, r := range snap.rows {
			if rowSeen[r.Key] {
				continue
			}
			rowSeen[r.Key] = true
			for _, f := range history.Figures {
				v, ok := r.Values[f]
				if !ok {
					continue
				}
				if history.Unit(f) == "µs" {
					v /= 1e6
				}
				ch <- gauge(descScheduleFigure, v, key.Namespace, key.Name, r.Target, r.Scenario, strconv.Itoa(int(r.LoadPoint)), f)
			}
		}
		seen := map[string]bool{}
		for _, c := range snap.changePoints {
			lv := []string{key.Namespace, key.Name, c.Target, c.Scenario, strconv.Itoa(int(c.LoadPoint)), c.Figure, c.Direction, c.Run}
			id := strconv.Quote(lv[2]) + strconv.Quote(lv[3]) + lv[4] + lv[5] + lv[6] + lv[7]
			if seen[id] || c.RunTime == nil {
				continue
			}
			seen[id] = true
			ch <- gauge(descCPTimestamp, float64(c.RunTime.Unix()), lv...)
			ch <- gauge(descCPMagnitude, float64(c.MagnitudePPM)/1e6, lv...)
			ch <- gauge(descCPChange, float64(c.ChangePPM)/1e6, lv...)
			ch <- gauge(descCPRecent, oneIf(c.Recent), lv...)
		}
		alerted := map[string]bool{}
		for _, a := range snap.alerts {
			lv := []string{key.Namespace, key.Name, a.Target, a.Scenario, strconv.Itoa(int(a.LoadPoint)), a.Figure, a.Run}
			id := strings.Join(lv[2:6], "\x00")
			if alerted[id] {
				continue
			}
			alerted[id] = true
			ch <- gauge(descAlert, float64(a.ChangePPM)/1e6, lv...)
		}
	}
}
