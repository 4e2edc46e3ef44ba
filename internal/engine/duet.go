package engine

import (
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// DuetArms are the trials that load at the same time as trial i, i first: with
// spec.load.pairing Duet, the arms of i's same-run pair in i's round that have not finished
// (plan.Shuffle keeps them next to each other). nil when trial i runs alone. Both modes
// start a duet's arms together and record each as a trial of its own.
func DuetArms(run *benchv1.BenchmarkRun, i int) []int {
	trials := run.Status.Trials
	t := trials[i]
	if run.Spec.Load.Pairing != benchv1.PairingDuet || t.Calibration {
		return nil
	}
	groups := plan.Groups(&run.Spec)
	group, ok := groups[t.Target]
	if !ok {
		return nil
	}
	arms := []int{i}
	for j := i + 1; j < len(trials) && sameRound(trials[j], t) && groups[trials[j].Target] == group; j++ {
		if p := trials[j].Phase; p == benchv1.TrialPending || p == benchv1.TrialRunning {
			arms = append(arms, j)
		}
	}
	if len(arms) < 2 {
		return nil
	}
	return arms
}

// sameRound: two trials of one repetition of a scenario at a load point (or search step).
func sameRound(a, b benchv1.Trial) bool {
	return a.Repetition == b.Repetition && a.Scenario == b.Scenario && a.LoadPoint == b.LoadPoint &&
		a.SearchStep == b.SearchStep && a.Calibration == b.Calibration
}

// DuetNote is what a duet's arm records beside its figures: the trials loaded at the same
// time as t. "" for a trial loaded alone.
func DuetNote(run *benchv1.BenchmarkRun, t *benchv1.Trial) string {
	if run.Spec.Load.Pairing != benchv1.PairingDuet || t.Calibration {
		return ""
	}
	groups := plan.Groups(&run.Spec)
	group, ok := groups[t.Target]
	if !ok {
		return ""
	}
	var beside []string
	for _, u := range run.Status.Trials {
		if u.Name != t.Name && sameRound(u, *t) && groups[u.Target] == group && u.Phase != benchv1.TrialSkipped {
			beside = append(beside, u.Name)
		}
	}
	if len(beside) == 0 {
		return ""
	}
	return "duet: loaded at the same time as " + strings.Join(beside, ", ")
}
