package transform

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// ResourcesAnnotation records the caps gauntlet fit put on a spec's containers, beside
// ScaleAnnotation and OverridesAnnotation: a row measured under them is a small cluster's.
const ResourcesAnnotation = "gauntlet.dev/resources"

// CapResources lowers each target's and each load generator runner's CPU and memory to at
// most cpu and memory (nil leaves that resource alone), so a seed sized for large nodes
// schedules on a small cluster. An unset value counts as the schema's default (1 CPU, 1Gi),
// which could not schedule there either. It returns the annotation value, "" when nothing
// was lowered.
func CapResources(spec *benchv1.BenchmarkRunSpec, cpu, memory *resource.Quantity) (string, error) {
	for flag, q := range map[string]*resource.Quantity{"--cpu": cpu, "--memory": memory} {
		if q != nil && q.Sign() <= 0 {
			return "", fmt.Errorf("%s: %s must be positive", flag, q)
		}
	}
	lowered := map[string]bool{}
	capOne := func(r *benchv1.Resources) {
		lowered["cpu"] = capQuantity(&r.CPU, cpu, "1") || lowered["cpu"]
		lowered["memory"] = capQuantity(&r.Memory, memory, "1Gi") || lowered["memory"]
	}
	for i := range spec.Targets {
		capOne(&spec.Targets[i].Resources)
	}
	capOne(&spec.LoadGenerator.Resources)
	var done []string
	if lowered["cpu"] {
		done = append(done, "cpu<="+cpu.String())
	}
	if lowered["memory"] {
		done = append(done, "memory<="+memory.String())
	}
	return strings.Join(done, ","), nil
}

// capQuantity sets *q to limit when *q (or def, when unset) is above it; reports whether it did.
func capQuantity(q **resource.Quantity, limit *resource.Quantity, def string) bool {
	if limit == nil {
		return false
	}
	cur := resource.MustParse(def)
	if *q != nil {
		cur = **q
	}
	if cur.Cmp(*limit) <= 0 {
		return false
	}
	l := limit.DeepCopy()
	*q = &l
	return true
}

// CapWorkers lowers every target's workers above n to n, for a node whose CPU cap leaves
// no room for the seed's processes (eight uvicorn workers in 200m start for a minute and
// share the same fifth of a core). A target without workers runs one and is left alone.
// It returns the change for the resources annotation ("workers<=N"), or "" when none.
func CapWorkers(spec *benchv1.BenchmarkRunSpec, n int32) (string, error) {
	if n == 0 {
		return "", nil
	}
	if n < 0 {
		return "", fmt.Errorf("--workers: %d must be positive", n)
	}
	lowered := false
	for i := range spec.Targets {
		if spec.Targets[i].Workers > n {
			spec.Targets[i].Workers, lowered = n, true
		}
	}
	if !lowered {
		return "", nil
	}
	return fmt.Sprintf("workers<=%d", n), nil
}
