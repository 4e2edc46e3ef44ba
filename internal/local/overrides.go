package local

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// OverridesAnnotation records on status.yaml which parts of the load a command-line flag
// shortened, so a result is never mistaken for one of the spec as written.
const OverridesAnnotation = "gauntlet.dev/overrides"

// Overrides shorten a run written for a cluster (five-minute windows, five repetitions) to
// fit a laptop; zero values leave the spec alone.
type Overrides struct {
	Warmup, Duration time.Duration
	Repetitions      int32
}

// Apply changes the spec's load and returns the annotation value ("" when nothing changed).
func (o Overrides) Apply(spec *benchv1.BenchmarkRunSpec) (string, error) {
	var done []string
	if o.Warmup < 0 {
		return "", fmt.Errorf("--warmup: %v must not be negative", o.Warmup)
	}
	if o.Duration < 0 || (o.Duration > 0 && o.Duration < time.Second) {
		return "", fmt.Errorf("--duration: %v must be at least 1s", o.Duration)
	}
	if o.Repetitions < 0 || o.Repetitions > 20 {
		return "", fmt.Errorf("--repetitions: %d must be between 1 and 20", o.Repetitions)
	}
	if o.Warmup > 0 {
		spec.Load.Warmup = benchv1.Duration(o.Warmup.String())
		done = append(done, "warmup="+o.Warmup.String())
	}
	if o.Duration > 0 {
		spec.Load.Duration = benchv1.Duration(o.Duration.String())
		done = append(done, "duration="+o.Duration.String())
	}
	if o.Repetitions > 0 {
		spec.Load.Repetitions = o.Repetitions
		done = append(done, fmt.Sprintf("repetitions=%d", o.Repetitions))
	}
	return strings.Join(done, ","), nil
}
