package main

import (
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func row(target string, p50, p99 int64, valid bool, flags ...string) benchv1.ResultRow {
	return benchv1.ResultRow{Target: target, Scenario: "ping", LoadPoint: 100, Repetitions: 1, Valid: valid, Flags: flags,
		LatencySource: benchv1.LatencyWire, AchievedMilliRPS: benchv1.Stat{Median: 100_000},
		Wire: &benchv1.LatencyStats{P50Micros: benchv1.Stat{Median: p50}, P99Micros: benchv1.Stat{Median: p99}}}
}

func TestTableJudgesTheGoal(t *testing.T) {
	cluster := &benchv1.BenchmarkRun{}
	cluster.Name = "doc"
	cluster.Status.Results = []benchv1.ResultRow{row("go", 400, 3000, true), row("express", 500, 100000, true), row("gone", 1, 2, true)}
	local := &benchv1.BenchmarkRun{}
	local.Status.Results = []benchv1.ResultRow{row("go", 450, 4000, true), row("express", 900, 20000, false, "GeneratorBound")}
	// Throttling over the row's trials; the generator floor's trial does not count.
	trial := func(target string, calibration bool, periods, waited int64) benchv1.Trial {
		return benchv1.Trial{Target: target, Scenario: "ping", LoadPoint: 100, Calibration: calibration,
			Result: &benchv1.Measurement{CPUPeriods: periods, CPUThrottledPeriods: waited}}
	}
	cluster.Status.Trials = []benchv1.Trial{trial("express", false, 300, 30), trial("express", false, 100, 70), trial("express", true, 100, 100)}
	local.Status.Trials = []benchv1.Trial{trial("express", false, 400, 12)}
	var out strings.Builder
	if err := write(&out, cluster, local); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| go ping @ 100 | 400µs | 450µs | 1.12x | 3.00ms | 4.00ms | 1.33x | 100.0 | 100.0 | — | — | yes | yes | meets |",
		"| express ping @ 100 | 500µs | 900µs | 1.80x | 100.00ms | 20.00ms | 0.20x | 100.0 | 100.0 | 25.0% | 3.0% | yes | no (GeneratorBound) | misses: p50 beyond 30%, p99 beyond 2x, validity differs |",
		"| gone ping @ 100 | — (not measured in both) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks\n%s\ngot:\n%s", want, got)
		}
	}
}
