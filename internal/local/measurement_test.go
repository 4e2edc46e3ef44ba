package local

import (
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/k6"
)

func TestMeasurementOf(t *testing.T) {
	m := measurementOf(k6.Result{Requests: 3001, AchievedRate: 300.1, Errors: 3, DroppedIterations: 2,
		Latency: k6.Latency{P50: 150, P99: 3100, Max: 9000}, GeneratorCores: 0.4321})
	if m.AchievedMilliRPS != 300100 || m.ErrorRatePPM != 999 || m.GeneratorCPUMillicores != 432 ||
		m.P99Micros != 3100 || m.DroppedIterations != 2 {
		t.Fatalf("%+v", m)
	}
	if m := measurementOf(k6.Result{GeneratorCores: -1}); m.GeneratorCPUMillicores != 0 {
		t.Fatalf("unsampled generator CPU must stay 0: %+v", m)
	}
}
