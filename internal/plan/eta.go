package plan

import (
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// EstimatedFinish is when the trials still to run should be done: each pending trial's
// warmup and measured window plus overhead (starting k6, reading Prometheus after its
// grace), and a running trial's rest of its window plus overhead. Trials run one at a time.
// A capacity search adds its steps as it goes, so before it ends this is a lower estimate.
// Nil when nothing is left to run.
func EstimatedFinish(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial, now time.Time, overhead time.Duration) *time.Time {
	var left time.Duration
	pending := false
	for i := range trials {
		t := &trials[i]
		warmup, measure := Windows(spec, FromStatus(t))
		switch t.Phase {
		case benchv1.TrialSucceeded, benchv1.TrialFailed, benchv1.TrialSkipped:
			continue
		case benchv1.TrialRunning:
			rest := warmup + measure
			if t.MeasureEnd != nil {
				rest = max(0, t.MeasureEnd.Sub(now))
			} else if t.MeasureStart != nil {
				rest = max(0, t.MeasureStart.Add(measure).Sub(now))
			}
			left += rest + overhead
		default: // Pending, or not yet given a phase
			left += warmup + measure + overhead
		}
		pending = true
	}
	if !pending {
		return nil
	}
	at := now.Add(left)
	return &at
}

// EstimateTolerance is how far a new estimate may move before it replaces the recorded one.
const EstimateTolerance = time.Minute

// ReviseEstimate is the estimate to record: old while next is within EstimateTolerance of
// it, so an estimate that drifts a little each pass does not rewrite the status (and
// trigger another pass) every time.
func ReviseEstimate(old, next *time.Time) *time.Time {
	if old == nil || next == nil {
		return next
	}
	if d := next.Sub(*old); d < EstimateTolerance && d > -EstimateTolerance {
		return old
	}
	return next
}
