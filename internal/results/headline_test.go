package results

import (
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func headlineRow(target, scenario string, load int32, p99 int64, flags ...string) benchv1.ResultRow {
	return benchv1.ResultRow{Target: target, Scenario: scenario, LoadPoint: load, Valid: len(flags) == 0, Flags: flags,
		LatencySource: benchv1.LatencyGenerator, P99Micros: benchv1.Stat{Median: p99}}
}

// The headline never crowns a target when an invalid row of the same comparison has a
// lower p99: seed 004 in the lab had fastapi GeneratorBound at 10.4 ms and express valid at
// 82.9 ms, and the headline named express.
func TestHeadlineCannotCrownTheWrongTarget(t *testing.T) {
	wire := headlineRow("go", "ping", 1000, 0)
	wire.LatencySource, wire.Wire = benchv1.LatencyWire, &benchv1.LatencyStats{P99Micros: benchv1.Stat{Median: 250}}
	for _, c := range []struct {
		name string
		rows []benchv1.ResultRow
		want string
	}{
		{"seed 004", []benchv1.ResultRow{headlineRow("fastapi", "health", 1000, 10_400, "GeneratorBound"),
			headlineRow("express", "health", 1000, 82_880), headlineRow("nestjs", "health", 1000, 100_500)},
			"inconclusive: fastapi's row is GeneratorBound (health @ 1000: its p99 10.40ms is below the best valid row's 82.88ms)"},
		{"the lowest of several invalid rows, every flag", []benchv1.ResultRow{headlineRow("a", "ping", 500, 900, "DroppedIterations"),
			headlineRow("b", "ping", 500, 700, "GeneratorBound", "GeneratorNoise"), headlineRow("c", "ping", 500, 1_000)},
			"inconclusive: b's row is GeneratorBound,GeneratorNoise (ping @ 500: its p99 700µs is below the best valid row's 1.00ms)"},
		{"an invalid row slower than the best", []benchv1.ResultRow{headlineRow("slow", "ping", 1000, 5_000, "GeneratorBound"),
			headlineRow("go", "ping", 1000, 1_700)}, "best p99: go ping 1.70ms @ 1000"},
		{"an invalid row of another scenario", []benchv1.ResultRow{headlineRow("fast", "db", 1000, 100, "GeneratorBound"),
			headlineRow("go", "ping", 1000, 1_700)}, "best p99: go ping 1.70ms @ 1000"},
		{"an invalid row at another load point", []benchv1.ResultRow{headlineRow("fast", "ping", 500, 100, "RateShortfall"),
			headlineRow("go", "ping", 1000, 1_700)}, "best p99: go ping 1.70ms @ 1000"},
		{"an invalid row with no latency", []benchv1.ResultRow{headlineRow("dead", "ping", 1000, 0, "FailedRepetitions"),
			headlineRow("go", "ping", 1000, 1_700)}, "best p99: go ping 1.70ms @ 1000"},
		{"the wire's figure is the one compared", []benchv1.ResultRow{wire, headlineRow("node", "ping", 1000, 400, "GeneratorBound")},
			"best p99: go ping 250µs (wire) @ 1000"},
		{"nothing valid", []benchv1.ResultRow{headlineRow("a", "ping", 1000, 100, "SharedCores")}, "no valid result"},
	} {
		if got := Headline(c.rows); got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}
}
