package results

import "fmt"

// The wire figure ends at the response's first byte, k6's at its last. A target that
// flushes a byte at once and computes afterwards looks fast on the wire while k6 waits for
// the rest: when the wire is the record, a row whose k6 p50, less the generator floor's,
// exceeds FirstByteGapFactor times the wire's p50 plus FirstByteGapSlackMicros says so in
// its message. A note, not a flag: a large or streamed body opens the same gap honestly
// (its transfer is after the first byte), and so does the network between the runners and
// a target on another node than the null responder's. The slack keeps microsecond-level
// rows, where k6's scheduling alone is the difference, quiet.
const (
	FirstByteGapFactor      = 2
	FirstByteGapSlackMicros = 1000
)

// FirstByteGap says why k6's p50 and the wire's disagree beyond the bound ("" when they do
// not, or when there is no floor to take k6's own time out).
func FirstByteGap(k6P50, floorP50, wireP50 int64) string {
	if floorP50 <= 0 || wireP50 <= 0 {
		return ""
	}
	beyond := k6P50 - floorP50
	if beyond <= FirstByteGapFactor*wireP50+FirstByteGapSlackMicros {
		return ""
	}
	return fmt.Sprintf("k6's p50 less the generator floor's (%s) is over %dx the wire's p50 (%s): the target's first response byte comes well before its last "+
		"(a large or streamed body, or a response flushed early); the wire figure ends at the first byte, k6's p50 is the whole response",
		FormatMicros(beyond), FirstByteGapFactor, FormatMicros(wireP50))
}
