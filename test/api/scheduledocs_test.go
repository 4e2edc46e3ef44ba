package api

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// measured fills a run's trials as the planner lays them out, each repetition's latency
// drawn around level with 1% noise, as a quiet machine gives.
func measured(spec *benchv1.BenchmarkRunSpec, level float64, rng *rand.Rand) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{Spec: *spec.DeepCopy()}
	trials, _ := plan.Build(&run.Spec, nil)
	for _, tr := range trials {
		v := int64(level * (1 + 0.01*rng.NormFloat64()))
		run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: tr.Name, Target: tr.Target, Scenario: tr.Scenario,
			LoadPoint: tr.LoadPoint, Repetition: tr.Repetition, Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: int64(tr.LoadPoint) * 60, AchievedMilliRPS: int64(tr.LoadPoint) * 1000,
				P50Micros: v, P90Micros: v, P95Micros: v, P99Micros: v, P999Micros: v, MaxMicros: v}})
	}
	run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
	return run
}

// The schedule template docs/schedule.md shows is accepted by the API server and, at the
// repetitions it sets, yields verdicts: an unchanged night is NoChange (not Inconclusive,
// which would make every run the next baseline), and one 20% slower is Slower.
func TestScheduleTemplateInDocsYieldsVerdicts(t *testing.T) {
	testenv.Long(t)
	doc, err := os.ReadFile("../../docs/schedule.md")
	if err != nil {
		t.Fatal(err)
	}
	var sched *benchv1.BenchmarkSchedule
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[1], "kind: BenchmarkSchedule") {
			sched = &benchv1.BenchmarkSchedule{}
			if err := yaml.UnmarshalStrict([]byte(m[1]), sched); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if sched == nil {
		t.Fatal("docs/schedule.md shows no BenchmarkSchedule")
	}
	sched.Namespace = newNamespace(t)
	if err := env.Client.Create(context.Background(), sched); err != nil {
		t.Fatalf("the API server refused the documented schedule: %v", err)
	}
	o, err := compare.OptionsFrom(sched.Spec.Template.Spec.Baseline)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 8))
	spec := &sched.Spec.Template.Spec
	for _, c := range []struct {
		level float64
		want  benchv1.RegressionVerdict
	}{{1000, benchv1.VerdictNoChange}, {1200, benchv1.VerdictSlower}} {
		base, night := measured(spec, 1000, rng), measured(spec, c.level, rng)
		night.Name, base.Name = "night", "last-good"
		compare.Apply(night, base, "last-good", o)
		for _, r := range night.Status.Results {
			if r.Baseline == nil || r.Baseline.Verdict != c.want {
				t.Errorf("a night at %.0f%% of the last good one, at the template's %d repetitions: %+v, want %s",
					c.level/10, spec.Load.Repetitions, r.Baseline, c.want)
			}
		}
	}
}
