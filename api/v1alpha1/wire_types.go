package v1alpha1

// WireLatency is one trial's latency on the wire, in microseconds.
type WireLatency struct {
	// Requests is the measured requests seen on the wire; it equals k6's count when the
	// capture saw every one.
	Requests int64 `json:"requests"`
	// Unanswered requests got no response byte before their connection closed or the
	// capture ended (timeouts); they have no latency.
	// +optional
	Unanswered int64 `json:"unanswered,omitempty"`
	// ErrorResponses is the measured requests answered with a status k6 counts as failed
	// (none the scenario's requests expect; 1xx and unreadable status lines not counted):
	// k6's series must count at least these, and the unanswered, as failed.
	// +optional
	ErrorResponses int64 `json:"errorResponses,omitempty"`
	P50Micros      int64 `json:"p50Micros"`
	P90Micros      int64 `json:"p90Micros"`
	P95Micros      int64 `json:"p95Micros"`
	P99Micros      int64 `json:"p99Micros"`
	P999Micros     int64 `json:"p999Micros"`
	MaxMicros      int64 `json:"maxMicros"`
	// DroppedPackets is what the kernel dropped before the capture read it, and the client
	// segments on connections beyond the capture's budget, which it did not follow; above 0
	// the wire figures are incomplete and not used.
	// +optional
	DroppedPackets int64 `json:"droppedPackets,omitempty"`
}

// LatencySource names the measurement a row's verdict, headline and validity read.
// +kubebuilder:validation:Enum=Wire;Generator
type LatencySource string

// Latency sources.
const (
	// LatencyWire: the packet capture of the target's port (every repetition captured).
	LatencyWire LatencySource = "Wire"
	// LatencyGenerator: k6's own timings, the row's p50Micros ... maxMicros.
	LatencyGenerator LatencySource = "Generator"
)
