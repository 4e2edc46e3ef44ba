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
		{0, 0, false, ""},        // not read
		{500, 0, false, ""},      // no CPUs: nothing to judge against
		{40, 2, false, "2.0%"},   // at the threshold
		{41, 2, true, "2.0%"},    // just over it
		{250, 2, true, "12.5%"},  // a neighbour's burst
		{300, 16, false, "1.8%"}, // the same steal spread over a larger machine's CPUs
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
	if n := StolenNote(benchv1.Measurement{HostStealMillicores: 40, HostCPUs: 2}); n != "" {
		t.Errorf("under the threshold: note %q", n)
	}
	if n := StolenNote(benchv1.Measurement{HostStealMillicores: 250, HostCPUs: 2}); n != "the hypervisor took 12.5% of the trial's 2 CPUs (steal): a comparison leaves this repetition out" {
		t.Errorf("note %q", n)
	}
	spec := &benchv1.BenchmarkRunSpec{}
	var trials []benchv1.Trial
	for rep, steal := range []int64{0, 250, 10, 600} {
		trials = append(trials, benchv1.Trial{Target: "go", Scenario: "s", LoadPoint: 10, Repetition: int32(rep + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 100, AchievedMilliRPS: 10_000, P50Micros: 100, HostStealMillicores: steal, HostCPUs: 2}})
	}
	rows := Aggregate(spec, trials)
	if len(rows) != 1 || !strings.Contains(rows[0].Message, "the hypervisor took over 2% of the CPUs in repetitions 2 (12.5%), 4 (30.0%) (steal): comparisons leave them out") {
		t.Fatalf("row message %q", rows[0].Message)
	}
	// A row's validity is its figures': a stolen repetition is said, not flagged.
	if !rows[0].Valid || len(rows[0].Flags) != 0 {
		t.Fatalf("row valid %v, flags %v", rows[0].Valid, rows[0].Flags)
	}
}
