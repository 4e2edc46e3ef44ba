package local

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
