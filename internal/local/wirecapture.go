package local

import (
	"errors"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// startWire starts capturing a trial's port on loopback (internal/wire). Without the
// privilege, or the device, it says why once and the run goes on with k6's figures.
func (r *runner) startWire(port int) *wire.Capture {
	r.wireMu.Lock() // a duet's arms start theirs at once
	defer r.wireMu.Unlock()
	if r.noWire != "" {
		return nil
	}
	c, err := wire.Start(port, r.cpus.target)
	if err != nil {
		r.noWire = err.Error()
		if errors.Is(err, wire.ErrNoPrivilege) {
			r.noWire = "no wire latency: " + err.Error() + "; k6's timings are the latency of record"
		}
		r.progress.note("%s", r.noWire)
		return nil
	}
	return c
}

// wireUnavailable is why the wire was not captured ("" while it is).
func (r *runner) wireUnavailable() string {
	r.wireMu.Lock()
	defer r.wireMu.Unlock()
	return r.noWire
}

// stopWire ends a capture and converts what it paired into the API's units; the plan's
// expected statuses tell the error responses from the others.
func (r *runner) stopWire(c *wire.Capture, p workload.Plan) *benchv1.WireLatency {
	if c == nil {
		return nil
	}
	res, err := c.Stop()
	if err != nil {
		r.progress.note("%v", err)
		return nil
	}
	return &benchv1.WireLatency{Requests: res.Requests, Unanswered: res.Unanswered,
		ErrorResponses: wire.ErrorResponses(res.Statuses, p.ExpectedStatuses()),
		P50Micros:      res.P50, P90Micros: res.P90, P95Micros: res.P95, P99Micros: res.P99, P999Micros: res.P999,
		MaxMicros: res.Max, DroppedPackets: res.Dropped + res.Refused}
}
