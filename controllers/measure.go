package controllers

import (
	"context"
	"regexp"
	"strings"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// Measurer reads one trial's figures as of readAt, a moment after k6's final push.
// note, when not empty, says which figures are missing (CPU and memory) without failing
// the trial: k6's figures are the measurement, the target's resources add to it.
type Measurer interface {
	Measure(ctx context.Context, q metrics.TrialQuery, readAt time.Time) (m benchv1.Measurement, note string, err error)
}

// PrometheusMeasurer reads through internal/metrics (the same queries the metrics tests
// check against real k6 data).
type PrometheusMeasurer struct{ Reader *metrics.Reader }

// Measure reads k6's series at readAt (the Reader's grace is the distance from the window's
// end) and cAdvisor's over the window.
func (p PrometheusMeasurer) Measure(ctx context.Context, q metrics.TrialQuery, readAt time.Time) (benchv1.Measurement, string, error) {
	rd := *p.Reader
	rd.Grace = readAt.Sub(q.End)
	m, err := rd.Load(ctx, q)
	if err != nil {
		return m, "", err
	}
	var notes []string
	if note, err := rd.Resources(ctx, q, &m); err != nil {
		notes = append(notes, "target CPU and memory not read: "+err.Error())
	} else if note != "" {
		notes = append(notes, note)
	}
	if note, err := rd.Generator(ctx, q, &m); err != nil {
		notes = append(notes, "runner CPU not read (GeneratorBound cannot be judged): "+err.Error())
	} else if note != "" {
		notes = append(notes, note)
	}
	return m, strings.Join(notes, "; "), nil
}

// trialQuery selects a trial's series: k6's by their testid (specs.TestID), and the target's
// pods are its Deployment's, named <deployment>-<hash>-<suffix>, or as much of that as
// podPrefix keeps and a suffix.
func trialQuery(run *benchv1.BenchmarkRun, t *benchv1.Trial) metrics.TrialQuery {
	size := trialRunners(run, t)
	return metrics.TrialQuery{
		TestID: specs.TestID(run, t.Name), Start: t.MeasureStart.Time, End: t.MeasureEnd.Time,
		Runners:   int(size.Runners),
		Namespace: run.Namespace,
		PodRegex:  regexp.QuoteMeta(podPrefix(deploymentOf(run, t))) + "[a-z0-9-]+",
		// k6-operator's runner Jobs are <testrun>-<n> (from 1); their pods add a suffix. Its
		// initializer and starter pods (<testrun>-initializer-..., -starter-...) do not
		// match: a letter follows the dash (TestRun names leave room for it, see specs).
		RunnerPodRegex:      regexp.QuoteMeta(podPrefix(t.TestRun)) + "[0-9][a-z0-9-]*",
		RunnerCPUMillicores: size.RunnerMillicores,
	}
}

// podPrefix is how every pod of a controller named name begins: the API server keeps 58
// characters of a generateName (name-...-) and adds 5, so a long name's pods may lose its
// end. Object names end in their own hash (internal/specs), so no other object's pods share
// the prefix unless two hashes share their first characters.
func podPrefix(name string) string {
	base := name + "-"
	return base[:min(len(base), 58)]
}

// deploymentOf names the Deployment a trial loads: its target's, or the null responder's.
func deploymentOf(run *benchv1.BenchmarkRun, t *benchv1.Trial) string {
	if t.Calibration {
		return specs.NullResponderName(run, calibrationPool(run))
	}
	return specs.TargetName(run, t.Target)
}

// trialRunners is the runners the trial's TestRun was given (sizing.Runners, which the
// TestRun builder also reads). The accept phase refused specs it cannot size.
func trialRunners(run *benchv1.BenchmarkRun, t *benchv1.Trial) sizing.Choice {
	c, err := sizing.Runners(run, t.LoadPoint)
	if err != nil {
		return sizing.Choice{Runners: max(run.Spec.LoadGenerator.Parallelism, 1)}
	}
	return c
}

// trialPlan is the k6 plan of a trial (plan.K6Plan, as the local mode builds it) with the
// operator's tags.
func trialPlan(run *benchv1.BenchmarkRun, t plan.Trial, baseURL string) (workload.Plan, error) {
	return plan.K6Plan(&run.Spec, t, baseURL, specs.PlanTags(run, t))
}
