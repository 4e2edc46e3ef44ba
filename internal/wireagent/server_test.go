//go:build linux

package wireagent

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

type canned struct{ r wire.EndpointResult }

func (c canned) Stop() (wire.EndpointResult, error) { return c.r, nil }

func TestAgentRefusesWithoutTheToken(t *testing.T) {
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{}, nil })
	for _, token := range []string{"wrong", "s3cret2"} {
		if err := os.WriteFile(c.TokenFile, []byte(token), 0o600); err != nil {
			t.Fatal(err)
		}
		err := c.Start(context.Background(), agent.URL, StartRequest{ID: "a", PodIP: "10.0.0.1", Port: 80, Seconds: 5})
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("token %q: want 401, got %v", token, err)
		}
	}
	// An agent without an authenticator refuses everything.
	open, ca := serveTLS(t, (&Server{Capture: func(wire.Endpoint) (Running, error) { return canned{}, nil }}).Handler(), time.Now())
	err := testClient(t, ca, "s3cret").Start(context.Background(), open.URL, StartRequest{ID: "a", PodIP: "10.0.0.1", Port: 80, Seconds: 5})
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "no authenticator") {
		t.Errorf("no authenticator: want 503 naming it, got %v", err)
	}
	// The probe, as the kubelet's: HTTPS without verification, no token.
	probe := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // as the kubelet probes
	resp, err := probe.Get(agent.URL + "/healthz")
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

// A capture says what the hypervisor took from the node's CPUs between its start and its
// stop; an agent that cannot read them says nothing of it.
func TestAgentReadsTheNodesSteal(t *testing.T) {
	samples := []hoststeal.Sample{{CPUs: []int{0, 1}, Steal: 1, Total: 100}, {CPUs: []int{0, 1}, Steal: 1.5, Total: 110}}
	steal := func() (hoststeal.Sample, error) {
		if len(samples) == 0 {
			return hoststeal.Sample{}, errors.New("no /proc/stat")
		}
		s := samples[0]
		samples = samples[1:]
		return s, nil
	}
	srv, ca := serveTLS(t, (&Server{Capture: func(wire.Endpoint) (Running, error) { return canned{}, nil }, Auth: tokenIs("s3cret"), Steal: steal}).Handler(), time.Now())
	c, ctx := testClient(t, ca, "s3cret"), context.Background()
	for _, id := range []string{"read", "unread"} {
		if err := c.Start(ctx, srv.URL, StartRequest{ID: id, PodIP: "10.0.0.1", Port: 80, Seconds: 5}); err != nil {
			t.Fatal(err)
		}
		f, err := c.Stop(ctx, srv.URL, id)
		if err != nil {
			t.Fatal(err)
		}
		// 0.5 s of 10 s of two CPUs' time: 5%, 100m over the two.
		if want := map[string][2]int64{"read": {100, 2}, "unread": {0, 0}}[id]; f.StealMillicores != want[0] || int64(f.CPUs) != want[1] {
			t.Errorf("%s: steal %dm over %d CPUs, want %dm over %d", id, f.StealMillicores, f.CPUs, want[0], want[1])
		}
	}
}

// A target that spreads its latencies makes large results: the agent keeps finished
// results up to a byte budget, not only a count, and caps each one's buckets.
func TestAgentKeptResultsBoundedByBytes(t *testing.T) {
	var h wire.Histogram
	for i := range 100_000 {
		h.Record(1_000 + int64(i)*3_000_000) // 1 µs to 300 s
	}
	res := wire.EndpointResult{Result: wire.Result{Requests: 100_000}, Buckets: h.Buckets(), MaxNanos: h.Max()}
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{res}, nil })
	ctx := context.Background()
	kept := 0
	for i := range KeepResults {
		q := StartRequest{ID: fmt.Sprintf("ns/tr-%d/pod", i), PodIP: "10.0.0.1", Port: 80, Seconds: 60}
		if err := c.Start(ctx, agent.URL, q); err != nil {
			t.Fatal(err)
		}
		f, err := c.Stop(ctx, agent.URL, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Buckets) > wire.MaxBuckets {
			t.Fatalf("a result carries %d buckets: want at most %d", len(f.Buckets), wire.MaxBuckets)
		}
	}
	total := 0
	for i := range KeepResults {
		resp, err := c.http.Load().Do(authed(t, agent.URL+"/v1/captures/"+url.PathEscape(fmt.Sprintf("ns/tr-%d/pod", i))))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			kept++
			total += int(n)
		}
	}
	t.Logf("%d results of %d buckets each: %d kept, %d bytes as JSON", KeepResults, len(res.Buckets), kept, total)
	if total > 2*KeepBytes || kept == 0 {
		t.Errorf("the agent keeps %d results, %d bytes as JSON: want at most about %d bytes", kept, total, KeepBytes)
	}
	// The newest result is always kept.
	if _, err := c.Stop(ctx, agent.URL, fmt.Sprintf("ns/tr-%d/pod", KeepResults-1)); err != nil {
		t.Errorf("the newest result is gone: %v", err)
	}
}

func authed(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	return req
}

// A trial that failed, or a run that was deleted, stops its captures by prefix: no
// capture keeps one of the node's slots until it stops itself an hour later.
func TestAgentStopsByPrefix(t *testing.T) {
	stopped := map[string]bool{}
	var mu sync.Mutex
	agent, c := newAgent(t, func(ep wire.Endpoint) (Running, error) {
		return stopFunc(func() (wire.EndpointResult, error) {
			mu.Lock()
			defer mu.Unlock()
			stopped[ep.Addr.String()] = true
			return wire.EndpointResult{}, nil
		}), nil
	})
	ctx := context.Background()
	for _, q := range []StartRequest{
		{ID: "uid-1/tr-a/pod-1", PodIP: "10.0.0.1", Port: 80, Seconds: 60},
		{ID: "uid-1/tr-b/pod-1", PodIP: "10.0.0.2", Port: 80, Seconds: 60},
		{ID: "uid-10/tr-a/pod-1", PodIP: "10.0.0.3", Port: 80, Seconds: 60},
	} {
		if err := c.Start(ctx, agent.URL, q); err != nil {
			t.Fatal(err)
		}
	}
	n, err := c.StopPrefix(ctx, agent.URL, "uid-1/")
	if err != nil || n != 2 {
		t.Fatalf("stop uid-1/: %d stopped, %v; want 2", n, err)
	}
	mu.Lock()
	if !stopped["10.0.0.1"] || !stopped["10.0.0.2"] || stopped["10.0.0.3"] {
		t.Errorf("stopped %v: want uid-1's two captures only", stopped)
	}
	mu.Unlock()
	for _, bad := range []string{"", "uid-1"} {
		if _, err := c.StopPrefix(ctx, agent.URL, bad); err == nil || !strings.Contains(err.Error(), "prefix") {
			t.Errorf("prefix %q: want an error naming prefix, got %v", bad, err)
		}
	}
	// Slots are free again: 16 new captures start.
	for i := range MaxRunning - 1 {
		if err := c.Start(ctx, agent.URL, StartRequest{ID: fmt.Sprintf("uid-2/tr/%d", i), PodIP: "10.0.0.9", Port: 80, Seconds: 60, Tenant: fmt.Sprint("t", i)}); err != nil {
			t.Fatalf("capture %d after the stop: %v", i, err)
		}
	}
}

type stopFunc func() (wire.EndpointResult, error)

func (f stopFunc) Stop() (wire.EndpointResult, error) { return f() }

// The longest trial the spec allows (1h warmup, 6h window, and the operator's start and
// finish timeouts) fits in one capture's life: it used to stop itself after an hour, and
// no trial longer than about 45 minutes had wire figures.
func TestAgentTakesTheLongestTrial(t *testing.T) {
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{}, nil })
	q := StartRequest{ID: "uid/tr/pod", PodIP: "10.0.0.1", Port: 80, Seconds: int((7*time.Hour + 20*time.Minute) / time.Second)}
	if err := c.Start(context.Background(), agent.URL, q); err != nil {
		t.Errorf("a 7h20m capture: %v", err)
	}
}

// One tenant's many concurrent runs cannot take every capture slot of a node: beyond
// MaxPerTenant its captures are refused, and another tenant's still start.
func TestAgentSharesSlotsAcrossTenants(t *testing.T) {
	agent, c := newAgent(t, func(wire.Endpoint) (Running, error) { return canned{}, nil })
	ctx := context.Background()
	start := func(tenant string, i int) error {
		return c.Start(ctx, agent.URL, StartRequest{ID: fmt.Sprintf("%s-uid/tr-%d/pod", tenant, i), PodIP: "10.0.0.1", Port: 80, Seconds: 60, Tenant: tenant})
	}
	for i := range MaxPerTenant {
		if err := start("greedy", i); err != nil {
			t.Fatalf("greedy capture %d: %v", i, err)
		}
	}
	if err := start("greedy", MaxPerTenant); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("greedy capture %d: %v, want 429", MaxPerTenant, err)
	}
	if err := start("other", 0); err != nil {
		t.Errorf("another tenant's capture: %v", err)
	}
	// A stopped capture gives its tenant's slot back.
	if _, err := c.Stop(ctx, agent.URL, "greedy-uid/tr-0/pod"); err != nil {
		t.Fatal(err)
	}
	if err := start("greedy", MaxPerTenant+1); err != nil {
		t.Errorf("after a stop: %v", err)
	}
}
