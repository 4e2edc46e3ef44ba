package opmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// A schedule's change points render one series each per metric (run tells two on the same
// row apart), figures in base units, and Forget drops them all; a nil store is a no-op.
func TestScheduleStore(t *testing.T) {
	at := metav1.NewTime(time.Unix(1_767_225_600, 0))
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "nightly"}}
	s.Status.HistoryRuns = 9
	s.Status.MissedScheduleTimes = 2
	s.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionRegressing, Status: metav1.ConditionTrue}}
	for _, run := range []string{"nightly-2", "nightly-1"} {
		s.Status.ChangePoints = append(s.Status.ChangePoints, benchv1.ScheduleChangePoint{Target: "go", Scenario: "ping", LoadPoint: 200,
			Figure: "p50", Run: run, RunTime: &at, Direction: "Slower", ChangePPM: 250_000, MagnitudePPM: 250_000, Recent: run == "nightly-2"})
	}
	store := NewScheduleStore()
	store.Observe(s, []history.Row{{Key: history.Key{Target: "go", Scenario: "ping", LoadPoint: 200},
		Values: map[string]float64{history.FigureP50: 600, history.FigureCapacity: 1200}}})
	want := `
# HELP gauntlet_schedule_change_point_recent 1 when the change point starts within the newest runs of the history (a Slower one sets Regressing), 0 when older.
# TYPE gauntlet_schedule_change_point_recent gauge
gauntlet_schedule_change_point_recent{direction="Slower",figure="p50",load_point="200",namespace="bench",run="nightly-1",scenario="ping",schedule="nightly",target="go"} 0
gauntlet_schedule_change_point_recent{direction="Slower",figure="p50",load_point="200",namespace="bench",run="nightly-2",scenario="ping",schedule="nightly",target="go"} 1
# HELP gauntlet_schedule_figure The newest run's figure of record in the schedule's history: p50, p99 and cpuPerRequest in seconds, capacity in requests per second.
# TYPE gauntlet_schedule_figure gauge
gauntlet_schedule_figure{figure="capacity",load_point="200",namespace="bench",scenario="ping",schedule="nightly",target="go"} 1200
gauntlet_schedule_figure{figure="p50",load_point="200",namespace="bench",scenario="ping",schedule="nightly",target="go"} 0.0006
# HELP gauntlet_schedule_history_runs Runs in the schedule's history (status.historyRuns): its ConfigMap, or the history database within the retention.
# TYPE gauntlet_schedule_history_runs gauge
gauntlet_schedule_history_runs{namespace="bench",schedule="nightly"} 9
# HELP gauntlet_schedule_missed_runs_total Scheduled times the schedule skipped for starting later than spec.startingDeadlineSeconds after them (status.missedScheduleTimes).
# TYPE gauntlet_schedule_missed_runs_total counter
gauntlet_schedule_missed_runs_total{namespace="bench",schedule="nightly"} 2
`
	if err := testutil.CollectAndCompare(store, strings.NewReader(want), MetricChangePointRecent, MetricScheduleFigure, MetricScheduleHistoryRuns, MetricScheduleMissed); err != nil {
		t.Fatal(err)
	}
	// 2 figures + regressing + history runs + missed + 4 metrics × 2 change points.
	if n := testutil.CollectAndCount(store); n != 13 {
		t.Fatalf("%d series", n)
	}
	if problems, err := testutil.CollectAndLint(store); err != nil || len(problems) != 0 {
		t.Fatalf("%v %v", problems, err)
	}
	store.Forget(types.NamespacedName{Namespace: "bench", Name: "nightly"})
	if n := testutil.CollectAndCount(store); n != 0 {
		t.Fatalf("%d series after Forget", n)
	}
	var none *ScheduleStore
	none.Observe(s, nil)
	none.Forget(types.NamespacedName{})
}
