package wire

// EndpointResult is an EndpointCapture's figures: the Result of the chosen interface, its
// name, and its latency histogram's buckets (so captures of several pods merge).
type EndpointResult struct {
	Result
	// Other is the requests outside the measured window (warmup, probes) on that interface.
	Other     int64
	Interface string
	Buckets   []Bucket
	MaxNanos  int64
}
