package transform

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

// specDuration writes d in the schema's whole units: 1m30s, or 1500ms where Go would write
// 1.5s, which the schema's pattern refuses.
func specDuration(d time.Duration) benchv1.Duration {
	if d%time.Second != 0 {
		return benchv1.Duration(fmt.Sprintf("%dms", d.Milliseconds()))
	}
	s := d.String() // 5m0s, 2h0m0s: the zero units dropped
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return benchv1.Duration(s)
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
	if o.Warmup%time.Millisecond != 0 || o.Duration%time.Millisecond != 0 {
		return "", fmt.Errorf("--warmup %v, --duration %v: whole milliseconds only", o.Warmup, o.Duration)
	}
	if o.Warmup > 0 {
		spec.Load.Warmup = specDuration(o.Warmup)
		done = append(done, "warmup="+string(spec.Load.Warmup))
	}
	if o.Duration > 0 {
		spec.Load.Duration = specDuration(o.Duration)
		done = append(done, "duration="+string(spec.Load.Duration))
	}
	if o.Repetitions > 0 {
		spec.Load.Repetitions = o.Repetitions
		done = append(done, fmt.Sprintf("repetitions=%d", o.Repetitions))
	}
	return strings.Join(done, ","), nil
}
