//go:build lab && labfull

package lab

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
)

// logNodeLoad logs, for each measured trial, how busy the node was over its window (the
// root cgroup's CPU from cAdvisor, every pod and the node's own processes) beside the
// target's CFS throttling from the status: what the same document run alone locally does
// not have. Not an assertion: the measurement that explains a cluster row's tail.
func (l *lab) logNodeLoad(t *testing.T, run *benchv1.BenchmarkRun) {
	papi := l.prometheus(t)
	for _, tr := range run.Status.Trials {
		m := tr.Result
		if tr.Calibration || m == nil || tr.MeasureStart == nil || tr.MeasureEnd == nil {
			continue
		}
		window := tr.MeasureEnd.Sub(tr.MeasureStart.Time)
		busy := "not read"
		// cAdvisor stamps the root cgroup at its housekeeping: the window padded as the
		// operator pads a target's CPU read (metrics.HousekeepingPad).
		for _, pad := range []time.Duration{0, metrics.HousekeepingPad} {
			q := fmt.Sprintf(`sum(rate(container_cpu_usage_seconds_total{id="/"}[%dms]))`, (window + 2*pad).Milliseconds())
			v, _, _, err := papi.Query(ctx(t, time.Minute), q, tr.MeasureEnd.Add(pad))
			if vec, ok := v.(model.Vector); err == nil && ok && len(vec) == 1 {
				busy = fmt.Sprintf("%.2f cores", float64(vec[0].Value))
				if pad > 0 {
					busy += fmt.Sprintf(" (over the window ± %v)", pad)
				}
				break
			}
		}
		throttled := "no CFS counters"
		if m.CPUPeriods > 0 {
			throttled = fmt.Sprintf("%d of %d periods (%.1f%%)", m.CPUThrottledPeriods, m.CPUPeriods, 100*float64(m.CPUThrottledPeriods)/float64(m.CPUPeriods))
		}
		t.Logf("trial %s: node busy %s over its %v window; target throttled in %s", tr.Name, busy, window, throttled)
	}
}
