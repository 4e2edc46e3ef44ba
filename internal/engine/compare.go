package engine

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
)

// Compare judges a run whose trials have all run against its baselines (internal/compare):
// its same-run pairs (spec.targets[].baselineTarget) always, and the baseline run the
// executor read (base, from source), or, when it could not read one the spec or the user
// named, unavailable says why and Regressed is Unknown unless a pair is Slower. It records
// the rows' verdicts, status.baseline, status.verdict and Regressed, and says what it found.
func Compare(run, base *benchv1.BenchmarkRun, source, unavailable string, notify Notify) {
	if !compare.HasPairs(run) && base == nil && unavailable == "" {
		return
	}
	o, err := compare.OptionsFrom(run.Spec.Baseline)
	if err != nil {
		compare.Unavailable(run, err.Error())
		notify.say(true, benchv1.ReasonBaselineUnavailable, "Compare", err.Error())
		return
	}
	compare.Apply(run, base, source, o)
	c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if base == nil && unavailable != "" {
		if c != nil && c.Status == metav1.ConditionTrue {
			c.Message += "; the baseline run: " + unavailable // a Slower pair stands without it
		} else {
			compare.Unavailable(run, unavailable)
			c = meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
		}
	}
	if c == nil {
		return
	}
	switch c.Reason {
	case benchv1.ReasonSlower:
		notify.say(true, benchv1.ReasonRegressed, "Compare", c.Message)
	case benchv1.ReasonBaselineUnavailable, benchv1.ReasonEnvironmentChanged, benchv1.ReasonNoVerdict:
		notify.say(true, c.Reason, "Compare", c.Message)
	default:
		notify.say(false, benchv1.ReasonBaselineCompared, "Compare", c.Message)
	}
}
