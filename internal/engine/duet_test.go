package engine

import (
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// duetRun is a run of a pair (b against a) and a target alone (c), two repetitions,
// its trials shuffled as both modes shuffle them.
func duetRun(t *testing.T, pairing benchv1.Pairing) *benchv1.BenchmarkRun {
	t.Helper()
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{
		Targets: []benchv1.Target{{Name: "a", Preset: "go-nethttp"}, {Name: "b", Preset: "go-nethttp", BaselineTarget: "a"},
			{Name: "c", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{100}, Repetitions: 2, Pairing: pairing},
	}}
	trials, err := plan.Build(&run.Spec, map[string][]string{"go-nethttp": {"ping"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range plan.WithCalibration(plan.Shuffle(trials, 11, plan.Groups(&run.Spec))) {
		run.Status.Trials = append(run.Status.Trials, tr.Status())
	}
	return run
}

func TestDuetArmsAreThePairsTrialsOfTheRound(t *testing.T) {
	run := duetRun(t, benchv1.PairingDuet)
	trials := run.Status.Trials
	duets := 0
	for i, tr := range trials {
		arms := DuetArms(run, i)
		switch {
		case tr.Calibration || tr.Target == "c":
			if arms != nil {
				t.Errorf("%s runs alone, got arms %v", tr.Name, arms)
			}
		case arms != nil:
			duets++
			if len(arms) != 2 || arms[0] != i || trials[arms[1]].Repetition != tr.Repetition || trials[arms[1]].Target == tr.Target {
				t.Errorf("%s: arms %v", tr.Name, arms)
			}
			other := trials[arms[1]].Name
			if note := DuetNote(run, &run.Status.Trials[arms[1]]); !strings.Contains(note, tr.Name) {
				t.Errorf("%s's note %q does not name %s", other, note, tr.Name)
			}
			// Once the first arm has finished, the second is no duet to start.
			run.Status.Trials[i].Phase = benchv1.TrialSucceeded
			if got := DuetArms(run, arms[1]); got != nil {
				t.Errorf("the second arm %s alone: %v", other, got)
			}
			if note := DuetNote(run, &run.Status.Trials[arms[1]]); !strings.Contains(note, tr.Name) {
				t.Errorf("after the first arm finished, %s's note %q", other, note)
			}
			run.Status.Trials[i].Phase = benchv1.TrialPending
		}
	}
	if duets != 2 {
		t.Fatalf("%d duets in two repetitions of one pair", duets)
	}
	// Interleaved: every trial runs alone, and notes nothing.
	inter := duetRun(t, benchv1.PairingInterleaved)
	for i := range inter.Status.Trials {
		if arms := DuetArms(inter, i); arms != nil || DuetNote(inter, &inter.Status.Trials[i]) != "" {
			t.Errorf("interleaved %s: arms %v", inter.Status.Trials[i].Name, arms)
		}
	}
}

// A duet's arm records which trials loaded with it first in its message, in both modes: the
// message is clipped to MaxMessageLength, and the wire's and placement's notes after it can
// fill that (in the lab they did, and the note was lost).
func TestRecordPutsTheDuetNoteFirst(t *testing.T) {
	run := duetRun(t, benchv1.PairingDuet)
	i := -1
	for j, tr := range run.Status.Trials {
		if tr.Target == "b" {
			i = j
			break
		}
	}
	arm := &run.Status.Trials[i]
	long := strings.Repeat("runner ran beside the target; ", 40)
	Record(run, arm, benchv1.Measurement{Requests: 1}, []string{long, "another note"}, nil)
	run.Status.Bound()
	if want := "duet: loaded at the same time as "; !strings.HasPrefix(arm.Message, want) || !strings.Contains(arm.Message, ".r") {
		t.Errorf("message %q: want it to start with %q and the other arm's name", arm.Message, want)
	}
	// A trial loaded alone has no duet note.
	alone := duetRun(t, benchv1.PairingInterleaved)
	tr := &alone.Status.Trials[i]
	Record(alone, tr, benchv1.Measurement{Requests: 1}, []string{"note"}, nil)
	if tr.Message != "note" {
		t.Errorf("interleaved trial's message %q, want just its note", tr.Message)
	}
}

// The host's steal is said right after a duet's note, before the longer notes.
func TestRecordSaysTheHostsSteal(t *testing.T) {
	run := duetRun(t, benchv1.PairingDuet)
	i := slices.IndexFunc(run.Status.Trials, func(tr benchv1.Trial) bool { return tr.Target == "b" })
	arm := &run.Status.Trials[i]
	Record(run, arm, benchv1.Measurement{Requests: 1, HostStealMillicores: 250, HostCPUs: 2}, []string{"the wire's note"}, nil)
	duet, rest, _ := strings.Cut(arm.Message, "; ")
	if !strings.HasPrefix(duet, "duet: ") || rest != "the hypervisor took 12.5% of the trial's 2 CPUs (steal): left out of a comparison that can spare it; the wire's note" {
		t.Fatalf("message %q", arm.Message)
	}
}
