package results

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// More validity flags: the latency is the generator's, or k6 and the target shared CPUs.
const (
	FlagGeneratorNoise = "GeneratorNoise"
	FlagSharedCores    = "SharedCores"
)

// NoiseFactor is the generator-noise rule: a row's k6 p99 must be at least this many times
// the generator floor's p99 (k6 against the null responder at the same scenario and rate)
// to count as the target's; below it, the floor alone accounts for more than half of what k6
// reports at p99. Chosen from hack/fidelity on a quiet 2-core machine (k6 on one core, the
// targets on the other, 2026-11-23; the wire p99 is the target's own): every row at or above
// 2x had k6's p99 within 1.5x of the wire's (python-flask, node-express at 100-400/s:
// k6/floor 2.3-3.6, k6/wire 1.2-1.5), while the rows under it overstated the target 3.6-43x
// (nginx, go-nethttp, cpp-epoll at 500-2000/s: k6/floor 0.9-1.6, k6/wire 3.6-43;
// python-starlette at 400/s: 0.9 and 3.8). The two groups meet near 1.5x, the boundary
// cases (node-express and python-starlette at 100/s: k6/floor 1.2, k6/wire 1.5-2.0) are
// flagged.
const NoiseFactor = 2

// GeneratorNoise reports whether a k6 p99 is not clearly above the generator floor's.
func GeneratorNoise(p99, floorP99 int64) bool { return floorP99 > 0 && p99 < NoiseFactor*floorP99 }

// Record is a row's latency of record (wire or generator), as medians over the repetitions:
// p50, p90, p95, p99, p99.9 and max.
func Record(r benchv1.ResultRow) [6]int64 {
	if r.LatencySource == benchv1.LatencyWire && r.Wire != nil {
		w := r.Wire
		return [6]int64{w.P50Micros.Median, w.P90Micros.Median, w.P95Micros.Median, w.P99Micros.Median, w.P999Micros.Median, w.MaxMicros.Median}
	}
	return [6]int64{r.P50Micros.Median, r.P90Micros.Median, r.P95Micros.Median, r.P99Micros.Median, r.P999Micros.Median, r.MaxMicros.Median}
}

// WireComplete says whether a trial's wire capture saw every measured request k6 counted
// answered, with no packet dropped: only then are its figures the measured window's. A
// request with no response on the wire (k6 gave up on it: a timeout) has no wire latency,
// so a distribution without it would leave out the slowest requests. The one exception:
// when k6 counted no error, every request it counted was answered, so requests the wire
// saw unanswered are ones k6 never counted (in flight when the measured scenario ended,
// abandoned as k6 stopped); the answered ones must then be exactly k6's.
func WireComplete(m benchv1.Measurement) bool {
	if m.Wire == nil || m.Wire.DroppedPackets != 0 {
		return false
	}
	if m.Wire.Unanswered == 0 {
		return m.Wire.Requests == m.Requests
	}
	return m.Errors == 0 && m.Wire.Requests-m.Wire.Unanswered == m.Requests
}

// SeriesBeyondWire says why a trial's k6 series cannot be the runners' own ("" when they
// can). Only a whole capture (no packet dropped or left unfollowed) is compared, two ways:
//   - answered: every request k6 saw answered crossed the target's wire answered, so the
//     series may count no more answered requests than the wire carried;
//   - failed: every error response on the wire (a status k6 counts as failed) and every
//     unanswered request (a timeout, a reset) is a failure k6 counted, so the series may
//     count no fewer failed requests. The exception is a request k6 never counted at all:
//     one in flight as k6 stopped, unanswered on the wire or answered with an error while
//     k6 was already gone. Only the wire's requests beyond k6's count are excused as such,
//     and no more than inFlight, the most requests the trial's k6 could have in flight at
//     once (plan.InFlight: one per virtual user), so a forged series hides at most that
//     many failures. A refused connection (k6's failure, never on the wire) shrinks that
//     surplus by one and adds one to k6's failures, so an honest run still passes with
//     nothing to spare.
//
// A surplus of answered requests or a shortfall of failures was written to Prometheus by
// someone else under the trial's labels (its receiver admits any writer): a forged series
// with fewer errors would show the target better than it is.
func SeriesBeyondWire(m benchv1.Measurement, inFlight int64) string {
	w := m.Wire
	if w == nil || w.DroppedPackets != 0 {
		return ""
	}
	const tail = ": the series were written by something other than the trial's runners (or the capture missed responses), so none of the trial's figures is used"
	answered, seen := m.Requests-m.Errors, w.Requests-w.Unanswered
	if answered > seen {
		return fmt.Sprintf("k6's series in Prometheus count %d answered requests, the target's wire carried %d with no packet dropped (%d more)"+tail,
			answered, seen, answered-seen)
	}
	abandoned := min(max(w.Requests-m.Requests, 0), w.Unanswered+w.ErrorResponses, max(inFlight, 0))
	if failed := w.ErrorResponses + w.Unanswered - abandoned; m.Errors < failed {
		return fmt.Sprintf("k6's series in Prometheus count %d failed requests, the target's wire saw %d error responses and %d unanswered requests "+
			"(%d of them in flight as k6 stopped, of at most %d) with no packet dropped: at least %d failed (%d more)"+tail,
			m.Errors, w.ErrorResponses, w.Unanswered, abandoned, inFlight, failed, failed-m.Errors)
	}
	return ""
}

// wireStats summarizes the repetitions' wire latencies, or nil unless every one of them
// has a complete capture (a mix of wire and k6 figures would be no distribution at all).
func wireStats(ms []benchv1.Measurement) *benchv1.LatencyStats {
	if len(ms) == 0 {
		return nil
	}
	ws := make([]benchv1.WireLatency, 0, len(ms))
	for _, m := range ms {
		if !WireComplete(m) {
			return nil
		}
		ws = append(ws, *m.Wire)
	}
	f := func(get func(benchv1.WireLatency) int64) benchv1.Stat {
		v := make([]int64, len(ws))
		for i, w := range ws {
			v[i] = get(w)
		}
		return Summarize(v)
	}
	return &benchv1.LatencyStats{
		Requests:   f(func(w benchv1.WireLatency) int64 { return w.Requests }),
		P50Micros:  f(func(w benchv1.WireLatency) int64 { return w.P50Micros }),
		P90Micros:  f(func(w benchv1.WireLatency) int64 { return w.P90Micros }),
		P95Micros:  f(func(w benchv1.WireLatency) int64 { return w.P95Micros }),
		P99Micros:  f(func(w benchv1.WireLatency) int64 { return w.P99Micros }),
		P999Micros: f(func(w benchv1.WireLatency) int64 { return w.P999Micros }),
		MaxMicros:  f(func(w benchv1.WireLatency) int64 { return w.MaxMicros }),
	}
}

type floorKey struct {
	scenario string
	point    int32
}

// floors are the generator floors of the succeeded calibration trials, by scenario and
// load point.
func floors(trials []benchv1.Trial) map[floorKey]*benchv1.GeneratorFloor {
	byKey := map[floorKey][]benchv1.Measurement{}
	for _, t := range trials {
		if t.Calibration && t.Phase == benchv1.TrialSucceeded && t.Result != nil {
			k := floorKey{t.Scenario, t.LoadPoint}
			byKey[k] = append(byKey[k], *t.Result)
		}
	}
	out := map[floorKey]*benchv1.GeneratorFloor{}
	for k, ms := range byKey {
		out[k] = &benchv1.GeneratorFloor{
			P50Micros:  over(ms, func(m benchv1.Measurement) int64 { return m.P50Micros }).Median,
			P99Micros:  over(ms, func(m benchv1.Measurement) int64 { return m.P99Micros }).Median,
			P999Micros: over(ms, func(m benchv1.Measurement) int64 { return m.P999Micros }).Median,
		}
	}
	return out
}

// ceilings are k6's own closed-model rates: the median achieved rate of the succeeded
// calibration trials (the same plan against the null responder), by scenario and load point.
func ceilings(trials []benchv1.Trial) map[floorKey]int64 {
	byKey := map[floorKey][]benchv1.Measurement{}
	for _, t := range trials {
		if t.Calibration && t.Phase == benchv1.TrialSucceeded && t.Result != nil {
			k := floorKey{t.Scenario, t.LoadPoint}
			byKey[k] = append(byKey[k], *t.Result)
		}
	}
	out := map[floorKey]int64{}
	for k, ms := range byKey {
		out[k] = over(ms, func(m benchv1.Measurement) int64 { return m.AchievedMilliRPS }).Median
	}
	return out
}

// latencyOfRecord sets the row's wire figures, latency source and generator floor, and
// judges generator noise: with wire figures the row stands (k6's noise is noted, not
// flagged); without them, k6's p99 is the record and noise makes the row invalid.
func latencyOfRecord(r *benchv1.ResultRow, ms []benchv1.Measurement, floor *benchv1.GeneratorFloor, addFlag func(string), note func(string)) {
	r.Wire, r.LatencySource = wireStats(ms), benchv1.LatencyGenerator
	if r.Wire != nil {
		r.LatencySource = benchv1.LatencyWire
	} else {
		for _, m := range ms {
			if m.Wire != nil && !WireComplete(m) {
				note(fmt.Sprintf("wire capture incomplete (%d of %d requests, %d unanswered, %d packets dropped): k6's figures are the record",
					m.Wire.Requests, m.Requests, m.Wire.Unanswered, m.Wire.DroppedPackets))
				break
			}
		}
	}
	r.GeneratorFloor = floor
	if r.LatencySource == benchv1.LatencyWire && floor != nil {
		if gap := FirstByteGap(r.P50Micros.Median, floor.P50Micros, r.Wire.P50Micros.Median); gap != "" {
			note(gap)
		}
	}
	if floor == nil || len(ms) == 0 || !GeneratorNoise(r.P99Micros.Median, floor.P99Micros) {
		return
	}
	if r.LatencySource == benchv1.LatencyWire {
		note(fmt.Sprintf("k6's p99 %s is under %dx the generator floor's %s: k6's figures here are mostly the generator's; the wire figures are the record",
			FormatMicros(r.P99Micros.Median), NoiseFactor, FormatMicros(floor.P99Micros)))
		return
	}
	addFlag(FlagGeneratorNoise)
}

// ApplyPlacement flags every row when k6 and the targets had to share CPUs.
func ApplyPlacement(rows []benchv1.ResultRow, p *benchv1.Placement) {
	if p == nil || !p.Shared {
		return
	}
	for i := range rows {
		rows[i].Flags = append(rows[i].Flags, FlagSharedCores)
		rows[i].Valid = false
	}
}
