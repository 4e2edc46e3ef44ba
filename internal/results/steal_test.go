package results

import (
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestHostStolenOverTheShare(t *testing.T) {
	for _, c := range []struct {
		steal int64
		cpus  int32
		want  bool
		share string
	}{
		{0, 0, false, ""},         // not read
		{500, 0, false, ""},       // no CPUs: nothing to judge against
		{200, 2, false, "10.0%"},  // at the threshold
		{201, 2, true, "10.0%"},   // just over it
		{250, 2, true, "12.5%"},   // a neighbour's burst
		{1500, 16, false, "9.3%"}, // the same share of a larger machine's CPUs, just under
	} {
		m := benchv1.Measurement{HostStealMillicores: c.steal, HostCPUs: c.cpus}
		if got := HostStolen(m); got != c.want {
			t.Errorf("HostStolen(%dm over %d CPUs) = %v, want %v", c.steal, c.cpus, got, c.want)
		}
		if got := StealShare(m); got != c.share {
			t.Errorf("StealShare(%dm over %d CPUs) = %q, want %q", c.steal, c.cpus, got, c.share)
		}
	}
}

func TestStolenNotes(t *testing.T) {
	if n := StolenNote(benchv1.Measurement{HostStealMillicores: 200, HostCPUs: 2}); n != "" {
		t.Errorf("under the threshold: note %q", n)
	}
	if n := StolenNote(benchv1.Measurement{HostStealMillicores: 250, HostCPUs: 2}); n != "the hypervisor took 12.5% of the trial's 2 CPUs (steal): left out of a comparison that can spare it" {
		t.Errorf("note %q", n)
	}
	spec := &benchv1.BenchmarkRunSpec{}
	var trials []benchv1.Trial
	for rep, steal := range []int64{0, 250, 10, 600} {
		trials = append(trials, benchv1.Trial{Target: "go", Scenario: "s", LoadPoint: 10, Repetition: int32(rep + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 100, AchievedMilliRPS: 10_000, P50Micros: 100, HostStealMillicores: steal, HostCPUs: 2}})
	}
	rows := Aggregate(spec, trials)
	if len(rows) != 1 || !strings.Contains(rows[0].Message, "the hypervisor took over 10% of the CPUs in repetitions 2 (12.5%), 4 (30.0%) (steal): left out of comparisons that can spare them") {
		t.Fatalf("row message %q", rows[0].Message)
	}
	// A row's validity is its figures': a stolen repetition is said, not flagged.
	if !rows[0].Valid || len(rows[0].Flags) != 0 {
		t.Fatalf("row valid %v, flags %v", rows[0].Valid, rows[0].Flags)
	}
}
