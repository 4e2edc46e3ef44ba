// Package wireagent is the node agent of the cluster's wire latency: on request it captures
// one pod's address and port (internal/wire, on the node's interfaces) and, when asked to
// stop, answers with figures only: counts, percentiles and histogram buckets, never a
// payload or an address other than the one it was asked about. The operator starts a
// capture when a trial's load starts and stops it once the trial's runners are done.
package wireagent

import "github.com/gauntlet-bench/gauntlet/internal/wire"

// DefaultPort is the agent's HTTPS port on its node.
const DefaultPort = 9477

// Limits: captures running at once, a capture's longest life (it stops itself then: the
// longest trial the spec allows, a 1h warmup and a 6h window, with its start and finish
// timeouts; the operator stops every capture when its trial ends, however it ends, and a
// capture's memory is bounded whatever its length), and how many finished captures are
// kept for the operator to read, in number and in bytes
// (the oldest go first; the newest is always kept). A result's size is the target's to
// choose up to wire.MaxBuckets buckets (about 33 KiB), so 4 MiB keeps at least 120 of
// the largest and all 256 of ordinary ones.
const (
	MaxRunning = 16
	// MaxPerTenant bounds one tenant's (namespace's) running captures on a node, so that
	// one tenant's many concurrent runs cannot take every slot from the others.
	MaxPerTenant = 4
	MaxSeconds   = 8 * 3600
	KeepResults  = 256
	KeepBytes    = 4 << 20
)

// StartRequest asks for a capture of one pod's endpoint. ID names it (the operator uses
// namespace/TestRun/pod): a second request with the same ID is the same capture.
type StartRequest struct {
	ID    string `json:"id"`
	PodIP string `json:"podIP"`
	Port  int    `json:"port"`
	// Seconds is how long the capture may run before it stops itself (at most MaxSeconds).
	Seconds int `json:"seconds"`
	// Tenant is the run's namespace: at most MaxPerTenant of a tenant's captures run at
	// once. Empty is a tenant of its own.
	Tenant string `json:"tenant,omitempty"`
}

// Capture states.
const (
	StateRunning = "Running"
	StateStopped = "Stopped"
)

// Figures is what the agent says about a capture.
type Figures struct {
	ID    string `json:"id"`
	State string `json:"state"`
	// Error says why a stopped capture's figures are incomplete (a read error).
	Error string `json:"error,omitempty"`
	// Interface is the node's interface the figures were read on (the target's veth).
	Interface      string `json:"interface,omitempty"`
	Requests       int64  `json:"requests"`
	Unanswered     int64  `json:"unanswered"`
	Other          int64  `json:"other"`
	DroppedPackets int64  `json:"droppedPackets"`
	// Refused is the client data segments on connections beyond the capture's budget
	// (wire.DefaultMaxConns), in no other count.
	Refused int64 `json:"refused,omitempty"`
	// Statuses is the measured responses by HTTP status (wire.Pairer.Statuses): the
	// operator counts the error responses with the trial's expected statuses.
	Statuses   map[int]int64 `json:"statuses,omitempty"`
	P50Micros  int64         `json:"p50Micros"`
	P90Micros  int64         `json:"p90Micros"`
	P95Micros  int64         `json:"p95Micros"`
	P99Micros  int64         `json:"p99Micros"`
	P999Micros int64         `json:"p999Micros"`
	MaxMicros  int64         `json:"maxMicros"`
	MaxNanos   int64         `json:"maxNanos"`
	Buckets    []wire.Bucket `json:"buckets,omitempty"`
	// StealMillicores is the CPU the hypervisor took from the node's CPUs over the capture
	// (hoststeal: its mean, summed over them); CPUs is how many (0: not read).
	StealMillicores int64 `json:"stealMillicores,omitempty"`
	CPUs            int32 `json:"cpus,omitempty"`
}

func figuresOf(id string, r wire.EndpointResult, err error) Figures {
	f := Figures{ID: id, State: StateStopped, Interface: r.Interface,
		Requests: r.Requests, Unanswered: r.Unanswered, Other: r.Other, DroppedPackets: r.Dropped, Refused: r.Refused,
		P50Micros: r.P50, P90Micros: r.P90, P95Micros: r.P95, P99Micros: r.P99, P999Micros: r.P999,
		MaxMicros: r.Max, MaxNanos: r.MaxNanos, Buckets: wire.CapBuckets(r.Buckets, wire.MaxBuckets), Statuses: r.Statuses}
	if err != nil {
		f.Error = err.Error()
	}
	return f
}

// size is about what a kept result holds in memory: its buckets and its strings.
func (f Figures) size() int {
	const fixed = 256
	return fixed + len(f.ID) + len(f.State) + len(f.Error) + len(f.Interface) + 16*len(f.Buckets) + 16*len(f.Statuses)
}

// StopRequest stops every running capture whose ID starts with Prefix (the operator's
// IDs start with the run's UID and the TestRun's name, each followed by "/").
type StopRequest struct {
	Prefix string `json:"prefix"`
}

// Stopped answers a StopRequest: how many captures it stopped.
type Stopped struct {
	Stopped int `json:"stopped"`
}
