package workload

import (
	"slices"
	"testing"
)

// A mix's expected statuses, each once, whether read from its requests or its plan: what
// the wire may not count as an error.
func TestExpectedStatuses(t *testing.T) {
	reqs := []Request{{ExpectStatus: 201}, {ExpectStatus: 200}, {ExpectStatus: 201}}
	if got := ExpectedStatuses(reqs); !slices.Equal(got, []int{200, 201}) {
		t.Errorf("requests: %v, want [200 201]", got)
	}
	p := Plan{Requests: []PlanRequest{{ExpectStatus: 404}, {ExpectStatus: 200}, {ExpectStatus: 404}}}
	if got := p.ExpectedStatuses(); !slices.Equal(got, []int{200, 404}) {
		t.Errorf("plan: %v, want [200 404]", got)
	}
}
