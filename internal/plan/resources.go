package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Bounds of a container's resources: above zero and within what a node has. The CRD
// cannot say it: a CEL rule on a quantity costs more than the API server's budget.
var (
	MaxCPU    = resource.MustParse("1024")
	MaxMemory = resource.MustParse("64Ti")
)

// CheckResources lists the targets' and the load generator's CPU and memory that are zero,
// negative or beyond any node, each with its field path.
func CheckResources(spec *benchv1.BenchmarkRunSpec) field.ErrorList {
	var errs field.ErrorList
	check := func(p *field.Path, r benchv1.Resources) {
		for _, q := range []struct {
			name string
			v    *resource.Quantity
			max  resource.Quantity
		}{{"cpu", r.CPU, MaxCPU}, {"memory", r.Memory, MaxMemory}} {
			if q.v == nil {
				continue
			}
			if q.v.Sign() <= 0 || q.v.Cmp(q.max) > 0 {
				errs = append(errs, field.Invalid(p.Child(q.name), q.v.String(),
					fmt.Sprintf("%s must be above 0 and at most %s", q.name, q.max.String())))
			}
		}
	}
	for i, t := range spec.Targets {
		check(field.NewPath("spec", "targets").Index(i).Child("resources"), t.Resources)
	}
	check(field.NewPath("spec", "loadGenerator", "resources"), spec.LoadGenerator.Resources)
	return errs
}
