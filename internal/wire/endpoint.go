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

// ReceiveBuffer is the socket receive buffer a capture asks for (SO_RCVBUF; the kernel
// grants up to net.core.rmem_max without CAP_NET_ADMIN, 208 KiB by default, and reports and
// charges twice the size asked, its bookkeeping included). The node agent runs up to 16
// captures (wireagent.MaxRunning) in a 128 MiB memory limit (the chart's
// wireCapture.resources), and socket memory counts against it: 16 × 2 × 1 MiB = 32 MiB, a
// quarter of the limit, beside the heap's worst case of about 60 MiB (16 captures at the
// connection cap, docs/operations.md). 2 MiB of queue holds a poll interval's packets
// (about 100 at 5,000 requests/s) many times over; an overflow is counted as drops, and a
// capture with drops is not used.
const ReceiveBuffer = 1 << 20
