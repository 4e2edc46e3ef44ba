package workload

import "slices"

// ExpectedStatuses is every status the requests expect, once each: the statuses a packet
// capture, which does not tell the requests apart, may not count as errors.
func ExpectedStatuses(reqs []Request) []int {
	s := make([]int, len(reqs))
	for i, r := range reqs {
		s[i] = r.ExpectStatus
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// ExpectedStatuses is every status the plan's requests expect, once each.
func (p Plan) ExpectedStatuses() []int {
	s := make([]int, len(p.Requests))
	for i, r := range p.Requests {
		s[i] = r.ExpectStatus
	}
	slices.Sort(s)
	return slices.Compact(s)
}
