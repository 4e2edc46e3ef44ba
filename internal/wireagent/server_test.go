//go:build linux

package wireagent

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

type canned struct{ r wire.EndpointResult }

func (c canned) Stop() (wire.EndpointResult, error) { return c.r, nil }

func TestAgentRefusesWithoutTheToken(t *testing.T) {
	agent, _ := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{}, nil })
	for _, token := range []string{"", "wrong", "s3cret2"} {
		c := Client{Token: token}
		err := c.Start(context.Background(), agent.URL, StartRequest{ID: "a", PodIP: "10.0.0.1", Port: 80, Seconds: 5})
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("token %q: want 401, got %v", token, err)
		}
	}
	resp, err := http.Get(agent.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestAgentNamesTheBadField(t *testing.T) {
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{}, nil })
	for _, tc := range []struct {
		q    StartRequest
		want string
	}{
		{StartRequest{PodIP: "10.0.0.1", Port: 80, Seconds: 5}, "id"},
		{StartRequest{ID: "a", PodIP: "fd00::1", Port: 80, Seconds: 5}, "podIP"},
		{StartRequest{ID: "a", PodIP: "10.0.0.1", Port: 70000, Seconds: 5}, "port"},
		{StartRequest{ID: "a", PodIP: "10.0.0.1", Port: 80, Seconds: MaxSeconds + 1}, "seconds"},
	} {
		err := c.Start(context.Background(), agent.URL, tc.q)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: want an error naming %s, got %v", tc.q, tc.want, err)
		}
	}
}

// One ID is one capture: a second start finds it; stop answers the canned figures, twice;
// an unknown ID is a 404 the operator reports.
func TestAgentCaptureLifecycle(t *testing.T) {
	started := 0
	res := wire.EndpointResult{Result: wire.Result{Requests: 9, P50: 70, P99: 300, Max: 900}, Interface: "veth1",
		Buckets: []wire.Bucket{{Index: 3, Count: 9}}, MaxNanos: 900_000}
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { started++; return canned{res}, nil })
	ctx := context.Background()
	q := StartRequest{ID: "ns/tr/pod", PodIP: "10.0.0.1", Port: 80, Seconds: 5}
	for range 2 {
		if err := c.Start(ctx, agent.URL, q); err != nil {
			t.Fatal(err)
		}
	}
	if started != 1 {
		t.Fatalf("started %d captures for one ID", started)
	}
	for range 2 {
		f, err := c.Stop(ctx, agent.URL, q.ID)
		if err != nil || f.State != StateStopped || f.Requests != 9 || f.P99Micros != 300 || f.Interface != "veth1" || len(f.Buckets) != 1 {
			t.Fatalf("stop: %+v %v", f, err)
		}
	}
	if _, err := c.Stop(ctx, agent.URL, "other"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown capture: want 404, got %v", err)
	}
}
