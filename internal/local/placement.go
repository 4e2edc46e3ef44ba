package local

import (
	"fmt"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cpuset"
)

// placement is the CPUs k6 and the target side (targets, null responder, database) run on.
type placement struct {
	generator, target []int
}

// placeCPUs splits this process's CPUs between k6 and the target side. k6 timing requests
// on the core that serves them adds its own scheduling to every figure (issue 15 measured
// k6's p99 at 10-20x the wire's on 2 shared cores), so they get disjoint sets; with one CPU
// they cannot, and the status says so (every row is then flagged SharedCores).
func placeCPUs(share bool) (placement, *benchv1.Placement) {
	if share {
		return placement{}, &benchv1.Placement{Shared: true, Message: "not pinned (asked to share): k6 and the targets share every CPU"}
	}
	cpus, err := cpuset.Available()
	if err != nil || len(cpus) == 0 {
		return placement{}, &benchv1.Placement{Shared: true, Message: fmt.Sprintf("CPUs not readable (%v): nothing pinned", err)}
	}
	gen, tgt, shared := cpuset.Split(cpus)
	if shared {
		return placement{}, &benchv1.Placement{Shared: true, Message: fmt.Sprintf("one CPU (%s): k6 and the targets share it", cpuset.Format(cpus))}
	}
	return placement{generator: gen, target: tgt}, &benchv1.Placement{GeneratorCPUs: cpuset.Format(gen), TargetCPUs: cpuset.Format(tgt),
		Message: fmt.Sprintf("sched_setaffinity: k6 on CPUs %s; targets, null responder, PostgreSQL and PgBouncer on %s", cpuset.Format(gen), cpuset.Format(tgt))}
}
