package workload

import (
	"strings"
	"testing"
)

func TestSpreadStrideIsCoprimeAndVisitsEveryID(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 10, 100, 7919, 10000} {
		r := IDRange{Min: 1, Max: n}
		seen := make(map[int]bool, n)
		for i := int64(0); i < int64(n); i++ {
			id := r.At(i)
			if id < 1 || id > n {
				t.Fatalf("span %d: iteration %d gave id %d outside 1..%d", n, i, id, n)
			}
			seen[id] = true
		}
		if len(seen) != n {
			t.Errorf("span %d: %d distinct ids in %d iterations, want every id once", n, len(seen), n)
		}
		if gcd(SpreadStride(n), n) != 1 {
			t.Errorf("span %d: stride %d is not coprime", n, SpreadStride(n))
		}
	}
}

func TestSpreadStrideValues(t *testing.T) {
	// n/φ ≈ 0.618 n, moved to the nearest integer coprime to n.
	for n, want := range map[int]int{1: 1, 2: 1, 3: 2, 5: 3, 10: 7, 12: 7, 100: 61, 10000: 6179} {
		if got := SpreadStride(n); got != want {
			t.Errorf("SpreadStride(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestIDsAreNotSequential(t *testing.T) {
	r := IDRange{Min: 1, Max: 10000}
	if a, b := r.At(0), r.At(1); b == a+1 {
		t.Errorf("ids %d then %d: consecutive iterations should not read neighbouring rows", a, b)
	}
	if r.At(3) != r.At(10003) {
		t.Errorf("the sequence should repeat with period span")
	}
}

func TestExpandPath(t *testing.T) {
	cases := []struct {
		req  Request
		iter int64
		want string
	}{
		{Request{Path: "/api/ping"}, 5, "/api/ping"},
		{Request{Path: "/devices/{id}/command", IDs: &IDRange{Min: 1, Max: 5}}, 0, "/devices/1/command"},
		// stride(5) = 3: 1 + (1×3 mod 5) = 4
		{Request{Path: "/devices/{id}/command", IDs: &IDRange{Min: 1, Max: 5}}, 1, "/devices/4/command"},
		{Request{Path: "/a/{id}/b/{id}", IDs: &IDRange{Min: 7, Max: 7}}, 99, "/a/7/b/7"},
		// no range: the default 1..10000, stride 6179
		{Request{Path: "/api/db/document/{id}"}, 1, "/api/db/document/6180"},
	}
	for _, c := range cases {
		if got := c.req.ExpandPath(c.iter); got != c.want {
			t.Errorf("%s at %d = %s, want %s", c.req.Path, c.iter, got, c.want)
		}
	}
}

func TestRequestValidateNamesTheField(t *testing.T) {
	ok := Request{Method: "GET", Path: "/x", Weight: 1, ExpectStatus: 200}
	cases := []struct {
		name   string
		mutate func(*Request)
		field  string
	}{
		{"method", func(r *Request) { r.Method = "get" }, "requests[0].method"},
		{"relative path", func(r *Request) { r.Path = "x" }, "requests[0].path"},
		{"space", func(r *Request) { r.Path = "/a b" }, "requests[0].path"},
		{"other placeholder", func(r *Request) { r.Path = "/a/{name}" }, "requests[0].path"},
		{"GET body", func(r *Request) { r.Body = "{}" }, "requests[0].body"},
		{"zero weight", func(r *Request) { r.Weight = 0 }, "requests[0].weight"},
		{"negative weight", func(r *Request) { r.Weight = -3 }, "requests[0].weight"},
		{"status", func(r *Request) { r.ExpectStatus = 0 }, "requests[0].expectStatus"},
		{"ids without placeholder", func(r *Request) { r.IDs = &IDRange{Min: 1, Max: 2} }, "requests[0].ids"},
		{"ids reversed", func(r *Request) { r.Path = "/d/{id}"; r.IDs = &IDRange{Min: 5, Max: 2} }, "requests[0].ids"},
		{"ids zero", func(r *Request) { r.Path = "/d/{id}"; r.IDs = &IDRange{Min: 0, Max: 2} }, "requests[0].ids"},
		{"ids huge", func(r *Request) { r.Path = "/d/{id}"; r.IDs = &IDRange{Min: 1, Max: 20_000_000} }, "requests[0].ids"},
	}
	if err := ok.Validate("requests[0]"); err != nil {
		t.Fatalf("valid request rejected: %v", err)
	}
	for _, c := range cases {
		r := ok
		c.mutate(&r)
		err := r.Validate("requests[0]")
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%s: error %v, want one starting with %q", c.name, err, c.field)
		}
	}
}

func TestValidateRequestsList(t *testing.T) {
	if err := ValidateRequests("spec.requests", nil); err == nil || !strings.HasPrefix(err.Error(), "spec.requests:") {
		t.Errorf("empty mix: %v", err)
	}
	reqs := []Request{{Method: "GET", Path: "/a", Weight: 1, ExpectStatus: 200}, {Method: "GET", Path: "/b", Weight: 0, ExpectStatus: 200}}
	if err := ValidateRequests("spec.requests", reqs); err == nil || !strings.HasPrefix(err.Error(), "spec.requests[1].weight:") {
		t.Errorf("bad second request: %v", err)
	}
	reqs[1].Weight = 1_000_000
	if err := ValidateRequests("spec.requests", reqs); err == nil || !strings.Contains(err.Error(), "add up") {
		t.Errorf("weights over the limit: %v", err)
	}
}
