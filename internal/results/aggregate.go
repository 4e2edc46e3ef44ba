package results

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Validity flags of a result row. Two say the load generator got in the way, in different
// ways: GeneratorBound, k6 was busy enough to inflate its own timings (its latencies are
// partly k6's; its rate and the wire's latencies are still the target's); GeneratorLimited,
// k6 limited the achieved rate of a closed model (the rate is a lower bound on the
// target's). Before GeneratorLimited existed, a closed-model GeneratorBound row also meant
// the second: a status written then says nothing of its rate either way.
const (
	FlagGeneratorBound    = "GeneratorBound"
	FlagGeneratorLimited  = "GeneratorLimited"
	FlagDroppedIterations = "DroppedIterations"
	FlagRateShortfall     = "RateShortfall"
	FlagErrorsAboveSLO    = "ErrorsAboveSLO"
	FlagFailedRepetitions = "FailedRepetitions"
)

// GeneratorBoundPercent: a k6 busier than this share of the CPU it could use (its runner's
// limit, or the cores the local mode gave it) adds its own queueing to the latencies it
// reports, while it still keeps the rate. Where k6's p99 starts to move (README, "Sizing the
// load generator"): 1.5x its light-load p99 at 15% busy, 1.6-5.3x at 30%, 18x at 50%.
const GeneratorBoundPercent = 25

// GeneratorBound is true when the busiest generator used more than GeneratorBoundPercent
// of its CPU; with no known limit (a status written before the limit was recorded) there
// is nothing to judge against.
func GeneratorBound(m benchv1.Measurement) bool {
	return m.GeneratorCPULimitMillicores > 0 && m.GeneratorCPUMillicores*100 > m.GeneratorCPULimitMillicores*GeneratorBoundPercent
}

// GeneratorAtLimitPercent: a k6 using this share of its CPU or more is at its limit; it
// cannot send faster, so in a closed model it, not the target, set the rate.
const GeneratorAtLimitPercent = 90

// GeneratorCeilingPercent: a closed-model row whose rate, in any repetition, is above this
// share of the rate k6 reached against the null responder at the same scenario and
// connections (the calibration trial: k6's own ceiling) is GeneratorLimited. At or under
// it, each request took the target at least twice what a whole round trip through k6 and
// the null responder took, so the target's time, not k6's, set the rate. The last recorded
// runs (hack/reproductions/testdata/last-run) split clearly: rows limited by the target's
// core sat at 6-32% of the ceiling with k6 under half its CPU.
const GeneratorCeilingPercent = 50

// GeneratorAtLimit is true when the busiest generator used GeneratorAtLimitPercent of its
// CPU or more (false with no known limit).
func GeneratorAtLimit(m benchv1.Measurement) bool {
	return m.GeneratorCPULimitMillicores > 0 && m.GeneratorCPUMillicores*100 >= m.GeneratorCPULimitMillicores*GeneratorAtLimitPercent
}

// ValidityFlags is every flag a row can carry: the bounded set the operator's metrics
// export as label values.
var ValidityFlags = []string{FlagGeneratorBound, FlagGeneratorLimited, FlagDroppedIterations, FlagRateShortfall, FlagErrorsAboveSLO,
	FlagFailedRepetitions, FlagGeneratorNoise, FlagSharedCores, FlagMostlyFailed}

// Flags says why one trial's figures cannot be trusted as the target's; empty means valid.
func Flags(m benchv1.Measurement, load benchv1.Load, loadPoint int32, slo *benchv1.SLO) []string {
	var flags []string
	if GeneratorBound(m) {
		flags = append(flags, FlagGeneratorBound)
	}
	if m.DroppedIterations > 0 {
		flags = append(flags, FlagDroppedIterations)
	}
	// Open model only: a closed model has no offered rate to fall short of.
	if load.Model != benchv1.LoadModelClosed && m.AchievedMilliRPS*100 < int64(loadPoint)*1000*99 {
		flags = append(flags, FlagRateShortfall)
	}
	if slo != nil && slo.ErrorRate != "" && m.ErrorRatePPM > ppm(slo.ErrorRate) {
		flags = append(flags, FlagErrorsAboveSLO)
	}
	if MostlyFailed(m) {
		flags = append(flags, FlagMostlyFailed)
	}
	return flags
}

// RowKey is what a result row aggregates over: one target, scenario and load point.
type RowKey struct {
	Target, Scenario string
	Point            int32
}

// Group gathers the trials that make result rows (finished, not calibration) by row, in
// plan order.
func Group(trials []benchv1.Trial) (order []RowKey, groups map[RowKey][]benchv1.Trial) {
	groups = map[RowKey][]benchv1.Trial{}
	for _, t := range trials {
		if !MakesRow(t) || t.Phase == benchv1.TrialSkipped || t.Phase == benchv1.TrialPending || t.Phase == benchv1.TrialRunning {
			continue
		}
		k := RowKey{t.Target, t.Scenario, t.LoadPoint}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t)
	}
	return order, groups
}

// MakesRow says whether a trial's figures enter a result row: calibration trials are the
// generator's floor, not a target's, and a capacity search's short steps only judge a rate.
func MakesRow(t benchv1.Trial) bool { return !t.Calibration && !t.Short }

// TrialRow is one trial judged as a row of its own: its flags, validity and SLO verdict,
// exactly as a row of that trial alone would have them (a capacity search's step).
func TrialRow(spec *benchv1.BenchmarkRunSpec, t benchv1.Trial) benchv1.ResultRow {
	return row(spec, RowKey{t.Target, t.Scenario, t.LoadPoint}, []benchv1.Trial{t}, nil, 0)
}

// Aggregate groups the succeeded trials by target, scenario and load point, in plan order
// with the spec's order of targets, and summarizes each figure over the repetitions.
func Aggregate(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial) []benchv1.ResultRow {
	order, groups := Group(trials)
	order = specOrder(spec, order)
	fl, ceilings := floors(trials), ceilings(trials)
	rows := make([]benchv1.ResultRow, 0, len(order))
	for _, k := range order {
		fk := floorKey{k.Scenario, k.Point}
		rows = append(rows, row(spec, k, groups[k], fl[fk], ceilings[fk]))
	}
	return rows
}

func row(spec *benchv1.BenchmarkRunSpec, k RowKey, trials []benchv1.Trial, floor *benchv1.GeneratorFloor, ceilingMilliRPS int64) benchv1.ResultRow {
	var ms []benchv1.Measurement
	flagSet := map[string]bool{}
	var flags, notes []string
	busy := false
	addFlag := func(f string) {
		if !flagSet[f] {
			flagSet[f] = true
			flags = append(flags, f)
		}
	}
	for _, t := range trials {
		if t.Phase != benchv1.TrialSucceeded || t.Result == nil {
			addFlag(FlagFailedRepetitions)
			notes = append(notes, fmt.Sprintf("repetition %d failed: %s", t.Repetition, t.Message))
			continue
		}
		ms = append(ms, *t.Result)
		for _, f := range Flags(*t.Result, spec.Load, k.Point, spec.SLO) {
			if f == FlagGeneratorBound {
				busy = true // judged below, once the latency of record is known
				continue
			}
			addFlag(f)
		}
	}
	r := benchv1.ResultRow{
		Target: k.Target, Scenario: k.Scenario, LoadPoint: k.Point, Repetitions: int32(len(ms)),
		AchievedMilliRPS:  over(ms, func(m benchv1.Measurement) int64 { return m.AchievedMilliRPS }),
		P50Micros:         over(ms, func(m benchv1.Measurement) int64 { return m.P50Micros }),
		P90Micros:         over(ms, func(m benchv1.Measurement) int64 { return m.P90Micros }),
		P95Micros:         over(ms, func(m benchv1.Measurement) int64 { return m.P95Micros }),
		P99Micros:         over(ms, func(m benchv1.Measurement) int64 { return m.P99Micros }),
		P999Micros:        over(ms, func(m benchv1.Measurement) int64 { return m.P999Micros }),
		MaxMicros:         over(ms, func(m benchv1.Measurement) int64 { return m.MaxMicros }),
		ErrorRatePPM:      over(ms, func(m benchv1.Measurement) int64 { return m.ErrorRatePPM }),
		DroppedIterations: over(ms, func(m benchv1.Measurement) int64 { return m.DroppedIterations }),
	}
	latencyOfRecord(&r, ms, floor, addFlag, func(n string) { notes = append(notes, n) })
	if n := besideTarget(ms); n != "" {
		notes = append(notes, n)
	}
	if n := stolenNote(trials); n != "" {
		notes = append(notes, n)
	}
	// A busy k6 inflates its own timings; when the wire is the record they are not the
	// row's figures, so it is noted, not flagged.
	if busy && r.LatencySource == benchv1.LatencyWire {
		notes = append(notes, fmt.Sprintf("k6 used over %d%% of its CPU: its own timings are inflated; the wire figures are the record", GeneratorBoundPercent))
	} else if busy {
		addFlag(FlagGeneratorBound)
	}
	if spec.Load.Model == benchv1.LoadModelClosed {
		limited(ms, busy, ceilingMilliRPS, r.AchievedMilliRPS, addFlag, func(n string) { notes = append(notes, n) })
	}
	r.Flags, r.Valid = flags, len(flags) == 0 && len(ms) > 0
	if hasAny(ms, func(m benchv1.Measurement) bool { return m.CPUMillicores > 0 }) {
		s := over(ms, func(m benchv1.Measurement) int64 { return m.CPUMillicores })
		r.CPUMillicores = &s
	}
	if hasAny(ms, func(m benchv1.Measurement) bool { return m.MemoryBytes > 0 }) {
		s := over(ms, func(m benchv1.Measurement) int64 { return m.MemoryBytes })
		r.MemoryBytes = &s
	}
	r.CostMicroUSDPerMillion = cost(spec, k.Target, r.AchievedMilliRPS.Median)
	r.SLO = verdict(spec.SLO, r)
	if len(ms) == 0 {
		notes = append(notes, "no repetition succeeded")
	}
	r.Message = strings.Join(notes, "; ")
	return r
}

// limited judges whether k6 set a closed model's rate (an open model's generator that fell
// behind shows as dropped iterations or a rate shortfall instead): k6 at its CPU limit in
// any repetition, or a rate near k6's own ceiling against the null responder. Without a
// calibration trial there is no ceiling to judge against, and a busy k6 might have set the
// rate: flagged, as a row with nothing to clear it.
func limited(ms []benchv1.Measurement, busy bool, ceilingMilliRPS int64, rate benchv1.Stat, addFlag, note func(string)) {
	for _, m := range ms {
		if GeneratorAtLimit(m) {
			addFlag(FlagGeneratorLimited)
			note(fmt.Sprintf("k6 used %d%% of its CPU: it set the rate, which is a lower bound on the target's",
				m.GeneratorCPUMillicores*100/m.GeneratorCPULimitMillicores))
			return
		}
	}
	switch {
	case ceilingMilliRPS > 0 && rate.Max*100 > ceilingMilliRPS*GeneratorCeilingPercent:
		addFlag(FlagGeneratorLimited)
		note(fmt.Sprintf("the rate reached %d%% of k6's own against the null responder (%s req/s): k6 may have set it, so it is a lower bound on the target's",
			rate.Max*100/ceilingMilliRPS, strconv.FormatInt(ceilingMilliRPS/1000, 10)))
	case busy && ceilingMilliRPS <= 0:
		addFlag(FlagGeneratorLimited)
		note(fmt.Sprintf("k6 used over %d%% of its CPU and no calibration trial gives its own ceiling: the rate is a lower bound on the target's", GeneratorBoundPercent))
	case busy:
		note(fmt.Sprintf("the rate stayed at or under %d%% of k6's own against the null responder (%s req/s): the target set it",
			GeneratorCeilingPercent, strconv.FormatInt(ceilingMilliRPS/1000, 10)))
	}
}

func over(ms []benchv1.Measurement, f func(benchv1.Measurement) int64) benchv1.Stat {
	v := make([]int64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	return Summarize(v)
}

func hasAny(ms []benchv1.Measurement, f func(benchv1.Measurement) bool) bool {
	for _, m := range ms {
		if f(m) {
			return true
		}
	}
	return false
}

// verdict judges the medians of the latency of record against the SLO.
func verdict(slo *benchv1.SLO, r benchv1.ResultRow) benchv1.Verdict {
	if slo == nil || r.Repetitions == 0 {
		return benchv1.VerdictNone
	}
	rec := Record(r) // the wire's latency when the row has it
	limits := []struct {
		limit benchv1.Duration
		got   int64
	}{
		{slo.P50, rec[0]}, {slo.P90, rec[1]}, {slo.P95, rec[2]}, {slo.P99, rec[3]}, {slo.P999, rec[4]},
	}
	for _, l := range limits {
		if l.limit != "" && l.got > l.limit.Std().Microseconds() {
			return benchv1.VerdictMissed
		}
	}
	if slo.ErrorRate != "" && r.ErrorRatePPM.Median > ppm(slo.ErrorRate) {
		return benchv1.VerdictMissed
	}
	return benchv1.VerdictMet
}

// cost is the node pool's hourly price spread over the requests served in an hour at the
// achieved rate, per million requests, in micro-USD. The pool is dedicated, so the whole
// node is charged to the target.
func cost(spec *benchv1.BenchmarkRunSpec, target string, milliRPS int64) *int64 {
	return Cost(spec, target, milliRPS)
}

// Cost is the cost per million requests of a target served at milliRPS, in micro-USD (nil
// without an hourly price for its node pool).
func Cost(spec *benchv1.BenchmarkRunSpec, target string, milliRPS int64) *int64 {
	if milliRPS <= 0 {
		return nil
	}
	for _, t := range spec.Targets {
		if t.Name != target || t.NodePool == "" {
			continue
		}
		for _, p := range spec.NodePools {
			if p.Name == t.NodePool && p.HourlyPrice != "" {
				priceMicro := micros(p.HourlyPrice)
				c := priceMicro * 1_000_000 * 1000 / (milliRPS * int64(time.Hour/time.Second))
				return &c
			}
		}
	}
	return nil
}

// ppm reads a decimal fraction such as "0.001" as parts per million (the schema allows at
// most 6 decimals).
func ppm(fraction string) int64 { return micros(fraction) }

// ParseFraction reads a decimal fraction between 0 and 1 with at most 6 decimals ("0.05")
// as parts per million; ok is false for anything else.
func ParseFraction(s string) (ppm int64, ok bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole != "0" && whole != "1" || len(frac) > 6 || strings.Trim(frac, "0123456789") != "" {
		return 0, false
	}
	v := micros(s)
	return v, v <= 1_000_000
}

// micros reads a non-negative decimal with at most 6 decimals as millionths, exactly.
func micros(decimal string) int64 {
	whole, frac, _ := strings.Cut(decimal, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	frac = (frac + "000000")[:6]
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*1_000_000 + f
}

// Progress is "finished/planned", skipped trials counting as finished.
func Progress(trials []benchv1.Trial) string {
	done, planned := TrialCounts(trials)
	return fmt.Sprintf("%d/%d", done, planned)
}

// TrialCounts is the trials finished (succeeded, failed or skipped) and the trials planned.
func TrialCounts(trials []benchv1.Trial) (done, planned int) {
	for _, t := range trials {
		switch t.Phase {
		case benchv1.TrialSucceeded, benchv1.TrialFailed, benchv1.TrialSkipped:
			done++
		}
	}
	return done, len(trials)
}

// InconclusivePrefix begins a headline whose best valid row an invalid one could beat.
const InconclusivePrefix = "inconclusive: "

// Headline names the lowest median p99 of record among valid rows at the highest load point.
// It crowns no one when an invalid row of the same scenario and load point has a lower p99:
// that target might be the faster one, and its figure cannot say (a GeneratorBound row's
// latency is partly k6's). The headline then names that row and why it is invalid.
func Headline(rows []benchv1.ResultRow) string {
	var best *benchv1.ResultRow
	for i := range rows {
		r := &rows[i]
		if !r.Valid {
			continue
		}
		if best == nil || r.LoadPoint > best.LoadPoint ||
			(r.LoadPoint == best.LoadPoint && Record(*r)[3] < Record(*best)[3]) {
			best = r
		}
	}
	if best == nil {
		return "no valid result"
	}
	if rival := hiddenRival(rows, best); rival != nil {
		return fmt.Sprintf(InconclusivePrefix+"%s's row is %s (%s @ %d: its p99 %s%s is below the best valid row's %s)", rival.Target, strings.Join(rival.Flags, ","),
			best.Scenario, best.LoadPoint, FormatMicros(Record(*rival)[3]), sourceNote(*rival), FormatMicros(Record(*best)[3]))
	}
	return fmt.Sprintf("best p99: %s %s %s%s @ %d", best.Target, best.Scenario, FormatMicros(Record(*best)[3]), sourceNote(*best), best.LoadPoint)
}

// hiddenRival is the invalid row of best's scenario and load point with the lowest p99 of
// record below best's, or nil. A row with no latency measured (every repetition failed)
// is no rival.
func hiddenRival(rows []benchv1.ResultRow, best *benchv1.ResultRow) *benchv1.ResultRow {
	var rival *benchv1.ResultRow
	for i := range rows {
		r := &rows[i]
		p99 := Record(*r)[3]
		if r.Valid || r.Scenario != best.Scenario || r.LoadPoint != best.LoadPoint || p99 <= 0 || p99 >= Record(*best)[3] {
			continue
		}
		if rival == nil || p99 < Record(*rival)[3] {
			rival = r
		}
	}
	return rival
}

func sourceNote(r benchv1.ResultRow) string {
	if r.LatencySource == benchv1.LatencyWire {
		return " (wire)"
	}
	return ""
}

// FormatMicros prints a latency the way people read them: 850µs, 1.86ms, 2.3s.
func FormatMicros(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%dµs", us)
	case us < 1_000_000:
		return strconv.FormatFloat(float64(us)/1000, 'f', 2, 64) + "ms"
	default:
		return strconv.FormatFloat(float64(us)/1e6, 'f', 2, 64) + "s"
	}
}

// besideTarget notes the repetitions whose runners shared a node with the target. Noted,
// not flagged: a node with CPUs to spare serves both without either waiting, and only the
// placement is known here, not whether they contended (the local mode flags SharedCores
// because there it split too few CPUs itself).
func besideTarget(ms []benchv1.Measurement) string {
	shared, nodes := 0, map[string]bool{}
	var names []string
	for _, m := range ms {
		if len(m.SharedNodes) > 0 {
			shared++
		}
		for _, n := range m.SharedNodes {
			if !nodes[n] {
				nodes[n] = true
				names = append(names, n)
			}
		}
	}
	if shared == 0 {
		return ""
	}
	where, whose := "node "+names[0], "its"
	if len(names) > 1 {
		where, whose = "nodes "+strings.Join(names, ", "), "their"
	}
	return fmt.Sprintf("k6 ran beside the target on %s in %d of %d repetitions: they shared %s CPUs, so the target's latency includes any wait for a CPU behind the generator (the local mode keeps them apart; spec.loadGenerator.nodePool puts the runners elsewhere)",
		where, shared, len(ms), whose)
}
