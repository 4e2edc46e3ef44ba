package search

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/results"
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
	if miss := sloMiss(spec.SLO, r); miss != "" {
		why = append(why, miss)
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
