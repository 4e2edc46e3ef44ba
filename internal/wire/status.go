package wire

import "slices"

// ErrorResponses is how many of the responses counted by status k6 must have counted as
// failed: loadgen/bench.js gives each request its expected status (k6's responseCallback),
// and any other status fails it (http_req_failed, expected_response="false"). expected is
// every status the plan's requests expect; the wire does not tell which request expected
// which, so a status some request expects is never counted, which makes the figure a lower
// bound when the plan's requests expect different statuses and exact when they expect one.
// Interim responses (1xx: k6 reads the final one after them) and responses whose first
// segment held no status line are not counted either.
func ErrorResponses(statuses map[int]int64, expected []int) int64 {
	var n int64
	for status, count := range statuses {
		if status >= 200 && !slices.Contains(expected, status) {
			n += count
		}
	}
	return n
}
