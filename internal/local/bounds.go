package local

import (
	"fmt"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// LocalMaxVUs bounds the virtual users one local k6 holds from the start: the open model's
// preallocated VUs (a tenth of the rate, or spec.load.maxVUs) and the closed model's
// connections. Each VU costs k6 about a megabyte or more; k6's documentation puts one
// machine's practical ceiling at 30,000-40,000 VUs. The API allows ten million requests
// per second and a million connections, which on one machine only exhaust it.
const LocalMaxVUs = 40_000

// LocalWorkersPerCPU bounds the worker processes of all targets together (every target
// runs from the start of the run to its end): this many per CPU of the machine.
const LocalWorkersPerCPU = 16

// CheckResources lists, with their field paths, the load points and workers that would
// exhaust this machine (cpus CPUs) in the local mode. Search steps are checked per trial
// (CheckPlanVUs): the search's maxRate is a ceiling it seldom reaches.
func CheckResources(spec *benchv1.BenchmarkRunSpec, cpus int) field.ErrorList {
	var errs field.ErrorList
	l := spec.Load
	for i, rate := range l.Rates {
		if vus := preAllocated(spec, int(rate)); vus > LocalMaxVUs {
			errs = append(errs, field.Invalid(field.NewPath("spec", "load", "rates").Index(i), rate,
				fmt.Sprintf("preallocates %d k6 VUs, more than the local mode's %d", vus, LocalMaxVUs)))
		}
	}
	for i, c := range l.Connections {
		if c > LocalMaxVUs {
			errs = append(errs, field.Invalid(field.NewPath("spec", "load", "connections").Index(i), c,
				fmt.Sprintf("one k6 VU per connection, more than the local mode's %d", LocalMaxVUs)))
		}
	}
	if l.MaxVUs != nil && *l.MaxVUs > LocalMaxVUs {
		errs = append(errs, field.Invalid(field.NewPath("spec", "load", "maxVUs"), *l.MaxVUs,
			fmt.Sprintf("the local mode preallocates maxVUs; more than its %d", LocalMaxVUs)))
	}
	total, bound := 0, LocalWorkersPerCPU*max(cpus, 1)
	for _, t := range spec.Targets {
		total += max(int(t.Workers), 1)
	}
	if total > bound {
		errs = append(errs, field.Invalid(field.NewPath("spec", "targets").Key("*").Child("workers"), total,
			fmt.Sprintf("%d worker processes across %d targets, all running at once, more than the local mode's %d (%d per CPU of this machine's %d)",
				total, len(spec.Targets), bound, LocalWorkersPerCPU, cpus)))
	}
	return errs
}

// preAllocated is the open model's preallocated VUs at a rate (internal/plan's K6Plan).
func preAllocated(spec *benchv1.BenchmarkRunSpec, rate int) int {
	if spec.Load.MaxVUs != nil {
		return int(*spec.Load.MaxVUs)
	}
	pre, _ := workload.DefaultVUs(rate)
	return pre
}

// CheckPlanVUs refuses a trial's plan that would hold more than LocalMaxVUs VUs from the start.
func CheckPlanVUs(trial string, p workload.Plan) error {
	if vus := p.StartVUs(); vus > LocalMaxVUs {
		return fmt.Errorf("trial %s: %d k6 VUs from the start (rate %d, vus %d), more than the local mode's %d; pass --allow-unsafe to run it anyway",
			trial, vus, p.Rate, p.VUs, LocalMaxVUs)
	}
	return nil
}

// ResourceError is CheckResources' refusal, one line per field.
func ResourceError(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  - " + e.Error()
	}
	return fmt.Errorf("refused: this spec would exhaust this machine in the local mode (pass --allow-unsafe to run it anyway):\n%s", strings.Join(lines, "\n"))
}

// machineCPUs is the CPUs this process may use, which bound the targets' workers.
func machineCPUs() int { return runtime.NumCPU() }
