package local

import (
	"math"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
)

// measurementOf converts k6's exact measured-window figures into the API's integer units.
// Target CPU and memory come from elsewhere (cgroups, /proc) and are filled by the caller.
func measurementOf(r k6.Result) benchv1.Measurement {
	m := benchv1.Measurement{
		Requests:          r.Requests,
		AchievedMilliRPS:  int64(math.Round(r.AchievedRate * 1000)),
		P50Micros:         r.Latency.P50,
		P90Micros:         r.Latency.P90,
		P95Micros:         r.Latency.P95,
		P99Micros:         r.Latency.P99,
		P999Micros:        r.Latency.P999,
		MaxMicros:         r.Latency.Max,
		Errors:            r.Errors,
		DroppedIterations: r.DroppedIterations,
	}
	if r.Requests > 0 {
		m.ErrorRatePPM = r.Errors * 1_000_000 / r.Requests
	}
	if r.GeneratorCores >= 0 {
		m.GeneratorCPUMillicores = int64(math.Round(r.GeneratorCores * 1000))
	}
	return m
}
