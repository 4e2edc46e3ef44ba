package workload

import (
	"fmt"
	"reflect"
)

// StartVUs is how many VUs k6 starts with for the plan: a duet's arms' together.
func (p Plan) StartVUs() int {
	return max(p.PreAllocatedVUs, p.VUs) * max(1, len(p.Arms))
}

// Duet is one plan that loads the arms of a duet together, from one k6, each arm at the
// whole load point of its own plan: the script sends iteration i to arm i mod n from one
// schedule at n times the rate, so the arrivals take turns (A, B, A, B). Where the arms
// share a core, a request of one then rarely lands on one of the other's: with a generator
// per arm, the phase between the arms' arrivals is whatever their start-up made it, so in
// some trials every request waits behind the other arm's and in others none does. The plans
// must differ only in their base URL and tags.
func Duet(arms []Plan) (Plan, error) {
	if len(arms) < 2 {
		return Plan{}, fmt.Errorf("duet: %d arms, need at least 2", len(arms))
	}
	first := arms[0]
	first.Arms = nil
	p := first
	for k, a := range arms {
		same := a
		same.BaseURL, same.Tags, same.Arms = first.BaseURL, first.Tags, nil
		if !reflect.DeepEqual(same, first) {
			return Plan{}, fmt.Errorf("duet: arm %d's plan differs from arm 0's in more than its baseURL and tags", k)
		}
		p.Arms = append(p.Arms, PlanArm{BaseURL: a.BaseURL, Tags: a.Tags})
	}
	return p, nil
}
