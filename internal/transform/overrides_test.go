package transform

import (
	"strings"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestOverridesApply(t *testing.T) {
	spec := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Warmup: "30s", Duration: "5m", Repetitions: 5}}
	got, err := Overrides{Duration: 30 * time.Second, Repetitions: 2}.Apply(&spec)
	if err != nil {
		t.Fatal(err)
	}
	if got != "duration=30s,repetitions=2" || spec.Load.Duration != "30s" || spec.Load.Repetitions != 2 || spec.Load.Warmup != "30s" {
		t.Fatalf("annotation %q, load %+v", got, spec.Load)
	}
	if got, _ := (Overrides{}).Apply(&spec); got != "" {
		t.Errorf("no flags changed %q", got)
	}
	for _, bad := range []struct {
		o    Overrides
		flag string
	}{{Overrides{Duration: time.Millisecond}, "--duration"}, {Overrides{Warmup: -time.Second}, "--warmup"}, {Overrides{Repetitions: 21}, "--repetitions"}} {
		if _, err := bad.o.Apply(&spec); err == nil || !strings.Contains(err.Error(), bad.flag) {
			t.Errorf("%+v: %v", bad.o, err)
		}
	}
}

// Overrides are written as the schema's pattern wants them: whole units, no fractions.
func TestOverridesWholeUnits(t *testing.T) {
	for d, want := range map[time.Duration]benchv1.Duration{
		1500 * time.Millisecond: "1500ms", 90 * time.Second: "1m30s", 5 * time.Minute: "5m",
		2 * time.Hour: "2h", time.Hour + time.Second: "1h0m1s", 30 * time.Second: "30s",
	} {
		spec := benchv1.BenchmarkRunSpec{}
		if _, err := (Overrides{Duration: d, Warmup: d}).Apply(&spec); err != nil || spec.Load.Duration != want || spec.Load.Warmup != want {
			t.Errorf("%v: duration %q, warmup %q, %v; want %q", d, spec.Load.Duration, spec.Load.Warmup, err, want)
		}
	}
	if _, err := (Overrides{Duration: time.Second + time.Microsecond}).Apply(&benchv1.BenchmarkRunSpec{}); err == nil {
		t.Error("1.000001s accepted")
	}
}
