package local_test

import (
	"os"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The wire capture sees exactly the requests k6 measured, with and without keep-alive: on
// loopback against go-nethttp, its count equals k6's measured request count, and its p50,
// which has no generator in it, is below k6's. The row's latency of record is then the
// wire's, and k6 and the target ran on disjoint CPUs.
func TestWireMatchesK6(t *testing.T) {
	testenv.Long(t)
	if os.Geteuid() != 0 {
		t.Fatal("this test needs root (the packet capture); CI and sessions run as root")
	}
	for _, keepAlive := range []string{"true", "false"} {
		t.Run("keepAlive="+keepAlive, func(t *testing.T) {
			c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: wire}
spec:
  targets: [{name: go, preset: go-nethttp}]
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [200], maxVUs: 50, warmup: 1s, duration: 3s, repetitions: 1, keepAlive: `+keepAlive+`}
`, nil)
			if code := c.wait(t, 2*time.Minute); code != 0 {
				t.Fatalf("exit status %d", code)
			}
			st := c.status(t).Status
			if len(st.Trials) != 2 || !st.Trials[0].Calibration {
				t.Fatalf("want the floor trial and one target trial: %+v", st.Trials)
			}
			tr := st.Trials[1]
			m := tr.Result
			if tr.Phase != benchv1.TrialSucceeded || m == nil || m.Wire == nil {
				t.Fatalf("trial %s: phase %s, message %q, result %+v", tr.Name, tr.Phase, tr.Message, m)
			}
			w := m.Wire
			if w.Requests != m.Requests || w.Unanswered != 0 || w.DroppedPackets != 0 || m.Requests < 550 {
				t.Errorf("wire saw %d requests (%d unanswered, %d packets dropped), k6 measured %d", w.Requests, w.Unanswered, w.DroppedPackets, m.Requests)
			}
			if !(0 < w.P50Micros && w.P50Micros < m.P50Micros && w.P50Micros <= w.P99Micros && w.P99Micros <= w.MaxMicros) {
				t.Errorf("wire p50 %d p99 %d max %d µs; k6 p50 %d µs", w.P50Micros, w.P99Micros, w.MaxMicros, m.P50Micros)
			}
			r := st.Results[0]
			if r.LatencySource != benchv1.LatencyWire || r.Wire == nil || r.Wire.P50Micros.Median != w.P50Micros || r.GeneratorFloor == nil {
				t.Errorf("row: source %s, wire %+v, floor %+v", r.LatencySource, r.Wire, r.GeneratorFloor)
			}
			if p := st.Placement; p == nil || p.Shared || p.GeneratorCPUs == "" || p.TargetCPUs == "" || p.GeneratorCPUs == p.TargetCPUs {
				t.Errorf("placement %+v", p)
			}
			if out := c.stdout.String(); !strings.Contains(out, "K6 P99") || !strings.Contains(out, " wire ") {
				t.Errorf("table lacks the wire and k6 columns:\n%s", out)
			}
		})
	}
}
