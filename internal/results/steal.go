package results

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// LeftOutHostSteal names, in a comparison's message, the repetitions left out because the
// hypervisor took their CPUs (HostStolen). It is not a row's validity flag: one stolen
// repetition moves a median little, but it moves a round's ratio as much as it moved the
// repetition.
const LeftOutHostSteal = "HostSteal"

// HostStealPercent: a repetition whose CPUs lost more than this share of their time to the
// hypervisor is left out of comparisons that can spare it (compare.spareStolen). On this
// project's 2-core cloud machine, trials under it were no more scattered than the others,
// and trials over it read high: about 7% at 10-20% stolen, 30% over 20%
// (docs/measurement.md, "Steal"). Leaving out steal under it only costs rounds.
const HostStealPercent = 10

// HostStolen is true when the hypervisor took more than HostStealPercent of the trial's CPUs
// (false where steal was not read).
func HostStolen(m benchv1.Measurement) bool {
	return m.HostCPUs > 0 && m.HostStealMillicores*100 > int64(m.HostCPUs)*1000*HostStealPercent
}

// StealPermille is a measurement's steal per mille of its CPUs' time (0 where it was not
// read): millicores over the CPUs read.
func StealPermille(m benchv1.Measurement) int64 {
	if m.HostCPUs <= 0 {
		return 0
	}
	return m.HostStealMillicores / int64(m.HostCPUs)
}

// StealShare is a measurement's steal as a share of its CPUs' time: "12.5%" ("" where it
// was not read).
func StealShare(m benchv1.Measurement) string {
	if m.HostCPUs <= 0 {
		return ""
	}
	p := StealPermille(m)
	return fmt.Sprintf("%d.%d%%", p/10, p%10)
}

// StolenNote is a trial's note when the hypervisor took its CPUs ("" when it did not).
func StolenNote(m benchv1.Measurement) string {
	if !HostStolen(m) {
		return ""
	}
	return fmt.Sprintf("the hypervisor took %s of the trial's %d CPUs (steal): left out of a comparison that can spare it",
		StealShare(m), m.HostCPUs)
}

// stolenNote says which repetitions of a row the hypervisor took ("" when none).
func stolenNote(trials []benchv1.Trial) string {
	var reps []string
	for _, t := range trials {
		if t.Phase == benchv1.TrialSucceeded && t.Result != nil && HostStolen(*t.Result) {
			reps = append(reps, fmt.Sprintf("%d (%s)", t.Repetition, StealShare(*t.Result)))
		}
	}
	if len(reps) == 0 {
		return ""
	}
	if len(reps) == 1 {
		return fmt.Sprintf("the hypervisor took over %d%% of the CPUs in repetition %s (steal): left out of comparisons that can spare it",
			HostStealPercent, reps[0])
	}
	return fmt.Sprintf("the hypervisor took over %d%% of the CPUs in repetitions %s (steal): left out of comparisons that can spare them",
		HostStealPercent, strings.Join(reps, ", "))
}
