package compare

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// Options are spec.baseline's settings, defaulted.
type Options struct {
	Metric       string
	MinEffect    string
	MinEffectPPM int64
}

// OptionsFrom reads spec.baseline (nil: the defaults). A minimum effect the schema would
// refuse is an error naming the field.
func OptionsFrom(b *benchv1.Baseline) (Options, error) {
	o := Options{Metric: DefaultMetric, MinEffect: DefaultMinEffect}
	if b != nil && b.Metric != "" {
		o.Metric = b.Metric
	}
	if b != nil && b.MinEffect != "" {
		o.MinEffect = b.MinEffect
	}
	if metricIndex(o.Metric) < 0 && o.Metric != MetricCPU {
		return o, fmt.Errorf("spec.baseline.metric: %q is not one of p50, p90, p95, p99, p999, %s", o.Metric, MetricCPU)
	}
	ppm, ok := results.ParseFraction(o.MinEffect)
	if !ok || ppm <= 0 || ppm >= 1_000_000 {
		return o, fmt.Errorf("spec.baseline.minEffect: %q is not a decimal fraction between 0 and 1 such as \"0.05\"", o.MinEffect)
	}
	o.MinEffectPPM = ppm
	return o, nil
}

// Rows compares every result row of run with the same row (target, scenario, load point)
// of base, from the repetitions in both runs' trials, and sets each row's Baseline; a
// capacity search's row at a rate the baseline never measured gets none. It returns the
// verdicts of the rows compared, in row order.
// Rows of targets with a baselineTarget are left to Pairs: they have their baseline here.
func Rows(run, base *benchv1.BenchmarkRun, o Options) []benchv1.RegressionVerdict {
	paired := baselineTargets(run)
	_, curGroups := results.Group(run.Status.Trials)
	_, baseGroups := results.Group(base.Status.Trials)
	baseRows := base.Status.Results
	if len(baseRows) == 0 {
		baseRows = results.Aggregate(&base.Spec, base.Status.Trials)
	}
	var verdicts []benchv1.RegressionVerdict
	for i := range run.Status.Results {
		r := &run.Status.Results[i]
		if paired[r.Target] != "" {
			continue
		}
		k := results.RowKey{Target: r.Target, Scenario: r.Scenario, Point: r.LoadPoint}
		r.Baseline = nil
		if !slices.Contains(plan.LoadPoints(run.Spec.Load), r.LoadPoint) && find(baseRows, k) == nil {
			continue // a capacity search's rate of this run alone: nothing to compare it with
		}
		cur, curOut := valid(&run.Spec, curGroups[k])
		prev, baseOut := valid(&base.Spec, baseGroups[k])
		c := row(r, find(baseRows, k), cur, prev, o)
		if left := leftOut("this run", curOut) + leftOut("the baseline", baseOut); left != "" && c.Verdict != benchv1.VerdictInconclusive {
			c.Message = strings.TrimPrefix(left, "; ")
		}
		if model(run) != model(base) {
			c = benchv1.Comparison{Verdict: benchv1.VerdictInconclusive, Metric: o.Metric,
				Message: fmt.Sprintf("the baseline used the %s model, this run the %s: load points differ in meaning", model(base), model(run))}
		}
		r.Baseline = &c
		verdicts = append(verdicts, c.Verdict)
	}
	return verdicts
}

func row(r, baseRow *benchv1.ResultRow, cur, base []benchv1.Measurement, o Options) benchv1.Comparison {
	return judgeRow(r, baseRow, cur, base, o, Judge)
}

// judgeRow is row with the test given: Judge for two samples, JudgePaired for rounds
// (cur[i] and base[i] of the same round).
func judgeRow(r, baseRow *benchv1.ResultRow, cur, base []benchv1.Measurement, o Options, judge func(base, cur []int64, minEffectPPM int64) benchv1.Comparison) benchv1.Comparison {
	inconclusive := func(format string, args ...any) benchv1.Comparison {
		return benchv1.Comparison{Verdict: benchv1.VerdictInconclusive, Metric: o.Metric, BaselineRepetitions: int32(len(base)),
			Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case baseRow == nil:
		return inconclusive("the baseline has no measured row for %s/%s at %d", r.Target, r.Scenario, r.LoadPoint)
	case rowLevel(r.Flags) != "":
		return inconclusive("this row is invalid (%s): its figures are not the target's", rowLevel(r.Flags))
	case rowLevel(baseRow.Flags) != "":
		return inconclusive("the baseline row is invalid (%s): its figures are not the target's", rowLevel(baseRow.Flags))
	case len(cur) < MinRepetitions || len(base) < MinRepetitions:
		return inconclusive("%d and %d valid repetitions (baseline, this run): a verdict needs at least %d a side", len(base), len(cur), MinRepetitions)
	}
	if o.Metric == MetricCPU {
		b, okB := cpuPerRequest(base)
		c, okC := cpuPerRequest(cur)
		if !okB || !okC {
			return inconclusive("a repetition has no CPU figure for the target: %s needs the target's CPU in every repetition", MetricCPU)
		}
		j := judge(b, c, o.MinEffectPPM)
		j.Metric = o.Metric
		return j
	}
	src := benchv1.LatencyWire
	for _, m := range append(append([]benchv1.Measurement(nil), cur...), base...) {
		if !results.WireComplete(m) {
			src = benchv1.LatencyGenerator // one source for both sides, or the shift is the source's
		}
	}
	idx := metricIndex(o.Metric)
	c := judge(values(base, src, idx), values(cur, src, idx), o.MinEffectPPM)
	c.Metric, c.Source = o.Metric, src
	return c
}

// Apply judges run and sets Regressed: every row of a target with a baselineTarget against
// that target's row in this run (Pairs), and, when base is not nil (spec.baseline.run, read
// from source: namespace/name or a folder), every other row against base's. Regressed is
// True when a row is Slower, and Unknown when base ran on another environment (the shift
// may be the machine's) or no row could be compared.
func Apply(run, base *benchv1.BenchmarkRun, source string, o Options) {
	for i := range run.Status.Results {
		run.Status.Results[i].Baseline = nil
	}
	pairs := Pairs(run, o)
	ref := &benchv1.BaselineRef{Metric: o.Metric, MinEffect: o.MinEffect, Pairs: pairs}
	var envDiff []string
	if base != nil {
		Rows(run, base, o)
		ref.Run, ref.Source = base.Name, source
		envDiff = EnvironmentDiff(base.Status.Environment, run.Status.Environment)
	}
	run.Status.Baseline = ref
	counts := map[benchv1.RegressionVerdict]int{}
	var slower []string
	compared := 0
	for _, r := range run.Status.Results {
		if r.Baseline == nil {
			continue
		}
		compared++
		counts[r.Baseline.Verdict]++
		if r.Baseline.Verdict == benchv1.VerdictSlower {
			slower = append(slower, fmt.Sprintf("%s %s", rowLabel(r), FormatShift(*r.Baseline)))
		}
	}
	against := []string{}
	if pairs != "" {
		against = append(against, pairs)
	}
	if base != nil {
		against = append(against, base.Name)
	}
	summary := fmt.Sprintf("%s against %s (min effect %s): %d Slower, %d Faster, %d NoChange, %d Inconclusive",
		o.Metric, strings.Join(against, " and "), o.MinEffect, counts[benchv1.VerdictSlower], counts[benchv1.VerdictFaster],
		counts[benchv1.VerdictNoChange], counts[benchv1.VerdictInconclusive])
	if base != nil {
		if c := CapacityChanges(run, base); c != "" {
			summary += "; capacity " + c
		}
	}
	run.Status.Verdict = Verdict(run)
	switch {
	case len(envDiff) > 0 && len(slower) > 0 && !slowerWithinRun(run):
		setRegressed(run, metav1.ConditionUnknown, benchv1.ReasonEnvironmentChanged,
			"not judged: the baseline ran elsewhere ("+strings.Join(envDiff, "; ")+"), so a shift may be the machine's; "+summary)
	case len(slower) > 0:
		setRegressed(run, metav1.ConditionTrue, benchv1.ReasonSlower, "slower: "+strings.Join(slower, ", ")+"; "+summary)
	case compared == 0:
		setRegressed(run, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, "no row could be compared: "+summary)
	case counts[benchv1.VerdictInconclusive] == compared:
		setRegressed(run, metav1.ConditionUnknown, benchv1.ReasonNoVerdict, "no row reached a verdict: "+summary)
	default:
		if len(envDiff) > 0 {
			summary += "; the baseline ran elsewhere: " + strings.Join(envDiff, "; ")
		}
		setRegressed(run, metav1.ConditionFalse, benchv1.ReasonNoRegression, summary)
	}
}

// slowerWithinRun: a same-run pair is Slower, which no change of machine explains.
func slowerWithinRun(run *benchv1.BenchmarkRun) bool {
	for _, r := range run.Status.Results {
		if c := r.Baseline; c != nil && c.BaselineTarget != "" && c.Verdict == benchv1.VerdictSlower {
			return true
		}
	}
	return false
}

func rowLabel(r benchv1.ResultRow) string {
	return fmt.Sprintf("%s/%s@%d", r.Target, r.Scenario, r.LoadPoint)
}

// CapacityChanges compares the capacity searches both runs answered: "go/ping 480/s → 432/s
// (-10.0%)". A single answer each has no spread to test: the change is reported, not judged.
func CapacityChanges(run, base *benchv1.BenchmarkRun) string {
	var parts []string
	for _, s := range run.Status.Search {
		for _, b := range base.Status.Search {
			if s.Target != b.Target || s.Scenario != b.Scenario || s.Phase != benchv1.SearchDone || b.Phase != benchv1.SearchDone || b.CapacityRPS == 0 {
				continue
			}
			change := (int64(s.CapacityRPS) - int64(b.CapacityRPS)) * 1_000_000 / int64(b.CapacityRPS)
			parts = append(parts, fmt.Sprintf("%s/%s %s → %s (%s)", s.Target, s.Scenario, capacityLabel(b), capacityLabel(s), units.FormatSignedPPM(change)))
		}
	}
	return strings.Join(parts, ", ")
}

func capacityLabel(s benchv1.CapacitySearch) string {
	if s.Bound == benchv1.BoundLower {
		return fmt.Sprintf(">=%d/s", s.CapacityRPS)
	}
	return fmt.Sprintf("%d/s", s.CapacityRPS)
}

// Unavailable sets Regressed Unknown: the baseline could not be read or has nothing to
// compare with.
func Unavailable(run *benchv1.BenchmarkRun, why string) {
	setRegressed(run, metav1.ConditionUnknown, benchv1.ReasonBaselineUnavailable, why)
}

// Summary counts a run's verdicts, for events and the terminal: "1 Slower, 2 NoChange".
func Summary(run *benchv1.BenchmarkRun) string {
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if c == nil {
		return ""
	}
	return fmt.Sprintf("Regressed=%s: %s", c.Status, c.Message)
}

func setRegressed(run *benchv1.BenchmarkRun, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: benchv1.ConditionRegressed, Status: status,
		Reason: reason, Message: msg, ObservedGeneration: run.Generation})
}

// CarryOver copies the comparisons of old rows onto freshly aggregated rows of the same key:
// the operator re-aggregates every pass, while the baseline is read once, at the end.
func CarryOver(old, fresh []benchv1.ResultRow) {
	for i := range fresh {
		k := results.RowKey{Target: fresh[i].Target, Scenario: fresh[i].Scenario, Point: fresh[i].LoadPoint}
		if o := find(old, k); o != nil && o.Baseline != nil {
			fresh[i].Baseline = o.Baseline
		}
	}
}

func find(rows []benchv1.ResultRow, k results.RowKey) *benchv1.ResultRow {
	for i := range rows {
		if rows[i].Target == k.Target && rows[i].Scenario == k.Scenario && rows[i].LoadPoint == k.Point {
			return &rows[i]
		}
	}
	return nil
}

// valid are the repetitions whose own figures can be trusted (results.TrialRow: no
// generator bound, dropped iterations, rate shortfall, errors above the SLO or mostly
// failed requests; and not taken by the hypervisor, as far as spareStolen allows), and why
// the others were left out: on a busy machine one stalled repetition would otherwise void
// the comparison of the other five.
func valid(spec *benchv1.BenchmarkRunSpec, trials []benchv1.Trial) (ms []benchv1.Measurement, out map[string]int) {
	out = map[string]int{}
	for _, t := range trials {
		if m, ok := trusted(spec, t, out); ok {
			ms = append(ms, m)
		}
	}
	return spareStolen(ms, out), out
}

// trusted is a succeeded trial's measurement when no flag of its own voids it; the flags
// that do are counted in out.
func trusted(spec *benchv1.BenchmarkRunSpec, t benchv1.Trial, out map[string]int) (benchv1.Measurement, bool) {
	if t.Phase != benchv1.TrialSucceeded || t.Result == nil {
		return benchv1.Measurement{}, false
	}
	if tr := results.TrialRow(spec, t); !tr.Valid {
		for _, f := range tr.Flags {
			out[f]++
		}
		return benchv1.Measurement{}, false
	}
	return *t.Result, true
}

func leftOut(side string, flags map[string]int) string {
	if len(flags) == 0 {
		return ""
	}
	var parts []string
	for _, f := range slices.Concat(results.ValidityFlags, []string{results.LeftOutHostSteal}) {
		if n := flags[f]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", f, n))
		}
	}
	return fmt.Sprintf("; %s: repetitions left out (%s)", side, strings.Join(parts, ", "))
}

// rowLevel are the flags that void a whole row rather than a repetition: k6 and the targets
// shared CPUs, or k6's latency is its own floor's (judged on the medians).
func rowLevel(flags []string) string {
	var out []string
	for _, f := range flags {
		if f == results.FlagSharedCores || f == results.FlagGeneratorNoise {
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

func model(run *benchv1.BenchmarkRun) string {
	if run.Spec.Load.Model == benchv1.LoadModelClosed {
		return "closed"
	}
	return "open"
}

var metrics = []string{"p50", "p90", "p95", "p99", "p999"}

// MetricCPU is the target's CPU time per request served.
const MetricCPU = "cpuPerRequest"

// cpuPerRequest is each repetition's CPU time per request in µs: the target's mean CPU over
// the window divided by the achieved rate (millicores / milli-req/s = seconds per request).
// ok is false when a repetition has no CPU figure.
func cpuPerRequest(ms []benchv1.Measurement) (out []int64, ok bool) {
	for _, m := range ms {
		if m.CPUMillicores <= 0 || m.AchievedMilliRPS <= 0 {
			return nil, false
		}
		out = append(out, m.CPUMillicores*1_000_000/m.AchievedMilliRPS)
	}
	return out, true
}

func metricIndex(m string) int {
	for i, v := range metrics {
		if v == m {
			return i
		}
	}
	return -1
}

// Sample is one row's valid repetitions of metric as a comparison reads them: a latency
// percentile (p50 ... p999) of the wire when every one was captured, else k6's; or the CPU
// time per request in µs (nil when a repetition has none). Tools that study the test's power
// read their samples here.
func Sample(run *benchv1.BenchmarkRun, k results.RowKey, metric string) []int64 {
	_, groups := results.Group(run.Status.Trials)
	ms, _ := valid(&run.Spec, groups[k])
	return Figures(ms, metric)
}

// Figures is metric of each measurement as Sample reads it (nil for cpuPerRequest when one
// has no CPU figure).
func Figures(ms []benchv1.Measurement, metric string) []int64 {
	if metric == MetricCPU {
		out, _ := cpuPerRequest(ms)
		return out
	}
	src := benchv1.LatencyWire
	for _, m := range ms {
		if !results.WireComplete(m) {
			src = benchv1.LatencyGenerator
		}
	}
	return values(ms, src, max(metricIndex(metric), 0))
}

// values is one latency percentile of each measurement, from the wire or from k6.
func values(ms []benchv1.Measurement, src benchv1.LatencySource, idx int) []int64 {
	out := make([]int64, 0, len(ms))
	for _, m := range ms {
		v := [5]int64{m.P50Micros, m.P90Micros, m.P95Micros, m.P99Micros, m.P999Micros}
		if src == benchv1.LatencyWire {
			w := m.Wire
			v = [5]int64{w.P50Micros, w.P90Micros, w.P95Micros, w.P99Micros, w.P999Micros}
		}
		out = append(out, v[idx])
	}
	return out
}

// Unreached says why no regression verdict stands for run: its Regressed condition is
// Unknown (the baseline could not be read, or shares no row), or its own rows support no
// answer (Conclusive False). "" when a verdict was reached.
func Unreached(run *benchv1.BenchmarkRun) string {
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionConclusive); c != nil && c.Status == metav1.ConditionFalse {
		return "RUN is inconclusive: " + c.Message
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c == nil || c.Status == metav1.ConditionUnknown {
		msg := "no verdict"
		if c != nil {
			msg = c.Message
		}
		return "no regression verdict: " + msg
	}
	return ""
}

// Regressed reports whether the run's Regressed condition is True.
func Regressed(run *benchv1.BenchmarkRun) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionRegressed)
}
