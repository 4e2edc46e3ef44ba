package local

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/cpuset"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// placement is the CPUs k6 and the target side (targets, null responder, database) run on.
type placement struct {
	generator, target []int
	// A duet's (spec.load.pairing Duet): each arm's target on a share of the target side,
	// where there are CPUs enough. One k6 loads a duet's arms, on the generator side.
	arms map[string][]int
}

// targetCPUs are the CPUs target name runs on: its arm's share in a duet, else the target side.
func (p placement) targetCPUs(name string) []int {
	if c, ok := p.arms[name]; ok {
		return c
	}
	return p.target
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

// placeDuet gives a duet's arms CPUs of their own (Bulej et al.'s duet needs each arm on
// cores the other does not use): each pair's targets a share of the target side. Where the
// side has fewer CPUs than a pair has arms, the arms share it, and the placement's message
// says so; one k6 loads a pair's arms with their arrivals in turns (workload.Duet), so on a
// shared core one arm's request rarely lands on the other's. Only the targets move: the null responder and the database
// keep the whole target side. Nothing changes unless spec.load.pairing is Duet.
func placeDuet(spec *benchv1.BenchmarkRunSpec, p placement, st *benchv1.Placement) placement {
	if spec.Load.Pairing != benchv1.PairingDuet || st.Shared {
		return p
	}
	pairs := map[string][]string{} // a pair's baseline → its targets, in spec order
	groups := plan.Groups(spec)
	for _, t := range spec.Targets {
		if root, ok := groups[t.Name]; ok {
			pairs[root] = append(pairs[root], t.Name)
		}
	}
	if len(pairs) == 0 {
		return p
	}
	p.arms = map[string][]int{}
	crowded := 0 // pairs whose arms outnumber the target side's CPUs
	for _, root := range slices.Sorted(maps.Keys(pairs)) {
		names := pairs[root]
		shares, ok := cpuset.Divide(p.target, len(names))
		if !ok {
			crowded++
			continue
		}
		for i, n := range names {
			p.arms[n] = shares[i]
			st.Arms = append(st.Arms, benchv1.ArmCPUs{Target: n, CPUs: cpuset.Format(shares[i])})
		}
	}
	var notes []string
	if len(st.Arms) > 0 {
		notes = append(notes, fmt.Sprintf("duet: %d pair(s)' targets on CPUs of their own (placement.arms)", len(pairs)-crowded))
	}
	if crowded > 0 {
		notes = append(notes, fmt.Sprintf("duet: %d pair(s) with more arms than the target side's CPUs (%s) share them, their requests in turns",
			crowded, cpuset.Format(p.target)))
	}
	notes = append(notes, "one k6 loads each pair's arms")
	st.Message += "; " + strings.Join(notes, "; ")
	return p
}
