package search

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// judged is one finished search trial's verdict.
type judged struct {
	outcome          benchv1.StepOutcome
	reason           string
	p99, achievedMil int64
}

// judge applies the row rules of internal/results to one trial: it passes when its row would
// be valid and meet the SLO. A generator past its CPU bound says nothing of the target: that
// step is GeneratorLimited, never a failure of the target.
func judge(spec *benchv1.BenchmarkRunSpec, t benchv1.Trial) judged {
	if t.Phase != benchv1.TrialSucceeded || t.Result == nil {
		msg, _, _ := strings.Cut(t.Message, "\n")
		return judged{outcome: benchv1.StepFail, reason: "trial failed: " + msg}
	}
	r := results.TrialRow(spec, t)
	j := judged{p99: results.Record(r)[3], achievedMil: t.Result.AchievedMilliRPS}
	var why []string
	for _, f := range r.Flags {
		if f == results.FlagGeneratorBound {
			j.outcome = benchv1.StepGeneratorLimited
			j.reason = fmt.Sprintf("the load generator used over %d%% of its CPU", results.GeneratorBoundPercent)
			return j
		}
		why = append(why, f)
	}
	miss := sloMiss(spec.SLO, r)
	if miss != "" {
		why = append(why, miss)
	} else if behind := generatorBehind(spec, t, r); behind != "" {
		j.outcome, j.reason = benchv1.StepGeneratorLimited, behind
		return j
	}
	if len(why) == 0 && r.Valid {
		j.outcome = benchv1.StepPass
		return j
	}
	j.outcome, j.reason = benchv1.StepFail, strings.Join(why, ", ")
	if j.reason == "" {
		j.reason = "invalid"
	}
	return j
}

// sloMiss names the first SLO figure a row misses: "p99 12.3ms > 10ms".
func sloMiss(slo *benchv1.SLO, r benchv1.ResultRow) string {
	if slo == nil || r.SLO != benchv1.VerdictMissed {
		return ""
	}
	rec := results.Record(r)
	for i, l := range []struct {
		name  string
		limit benchv1.Duration
	}{{"p50", slo.P50}, {"p90", slo.P90}, {"p95", slo.P95}, {"p99", slo.P99}, {"p99.9", slo.P999}} {
		if l.limit != "" && rec[i] > l.limit.Std().Microseconds() {
			return fmt.Sprintf("%s %s > %s", l.name, results.FormatMicros(rec[i]), l.limit)
		}
	}
	return "error rate above the SLO"
}

// generatorBehind says why a step that fell short of its rate is the load generator's doing,
// or "". An open model's k6 drops an iteration when no VU is free or when it cannot run in
// time itself. A saturated target keeps the VUs busy: by Little's law, requests in flight
// are the achieved rate times the time each takes. With the latency within the SLO and
// under half of the VUs in use (a p90 taken for the mean, which overstates it), the VUs
// were there and the target answered in time: k6 did not get to send (a busy machine
// starves it long before its own CPU crosses GeneratorBoundPercent).
func generatorBehind(spec *benchv1.BenchmarkRunSpec, t benchv1.Trial, r benchv1.ResultRow) string {
	short := false
	for _, f := range r.Flags {
		switch f {
		case results.FlagDroppedIterations, results.FlagRateShortfall:
			short = true
		default:
			return "" // another reason fails the step
		}
	}
	if !short || t.Result == nil {
		return ""
	}
	_, maxVUs := workload.DefaultVUs(int(t.LoadPoint))
	if spec.Load.MaxVUs != nil {
		maxVUs = int(*spec.Load.MaxVUs)
	}
	p90 := float64(results.Record(r)[1]) / 1e6
	inFlight := float64(t.Result.AchievedMilliRPS) / 1000 * p90
	if inFlight*2 >= float64(maxVUs) {
		return ""
	}
	return fmt.Sprintf("k6 fell behind the rate (%d dropped iterations) with about %.0f of %d VUs in use: the target kept pace",
		t.Result.DroppedIterations, inFlight, maxVUs)
}
