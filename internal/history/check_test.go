package history

import (
	"math"
	"strings"
	"testing"
)

// The checks a history reader applies to what it reads back (the schedule's ConfigMap, the
// history store): each refusal names what it refused.
func TestChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"empty run name", CheckRunName(""), "run name is empty"},
		{"long run name", CheckRunName(strings.Repeat("r", 254)), "run name \"rrr"},
		{"empty target", CheckKey(Key{Scenario: "ping"}), "target is empty"},
		{"long target", CheckKey(Key{Target: strings.Repeat("t", 64), Scenario: "ping"}), "longer than 63"},
		{"long scenario", CheckKey(Key{Target: "go", Scenario: strings.Repeat("s", 64)}), "scenario"},
		{"negative load point", CheckKey(Key{Target: "go", Scenario: "ping", LoadPoint: -1}), "load point -1 is negative"},
		{"unknown figure", CheckValue("bogus", 1), `figure "bogus" is not one of p50, p99, cpuPerRequest, capacity`},
		{"negative value", CheckValue(FigureP50, -1), "p50 -1 is negative"},
		{"absurd value", CheckValue(FigureP99, 1e15), "p99 1e+15 is not below 1e+15"},
		{"NaN", CheckValue(FigureCPU, math.NaN()), "cpuPerRequest NaN is not a number"},
		{"infinite", CheckValue(FigureCapacity, math.Inf(1)), "capacity +Inf is not below"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
	for _, err := range []error{CheckRunName("nightly-29000000"), CheckKey(Key{Target: "go", Scenario: "ping"}),
		CheckKey(Key{Target: strings.Repeat("t", 63), Scenario: "", LoadPoint: 200}), CheckValue(FigureP50, 0), CheckValue(FigureCapacity, 999e12)} {
		if err != nil {
			t.Errorf("refused a value the controller writes: %v", err)
		}
	}
}
