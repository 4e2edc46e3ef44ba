package results

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummary(t *testing.T) {
	long := strings.Repeat("t", 63)
	for _, tc := range []struct{ headline, want string }{
		{"", ""},
		{"no valid result", "no valid result"},
		{"best p99: go ping 1.90ms (wire) @ 1000", "best p99: go ping 1.90ms (wire) @ 1000"},
		{"inconclusive: fastapi's row is GeneratorBound (health @ 1000: its p99 10.40ms is below the best valid row's 82.88ms)",
			"inconclusive: fastapi's row is GeneratorBound"},
		{"best p99: " + long + " " + long + " 4.34ms (wire) @ 100", "best p99: " + long[:53] + "…"},
		{"best p99: µµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµ", "best p99: µµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµµ…"},
	} {
		got := Summary(tc.headline)
		if got != tc.want {
			t.Errorf("Summary(%q) = %q, want %q", tc.headline, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > SummaryLength || !utf8.ValidString(got) {
			t.Errorf("Summary(%q): %d characters (valid UTF-8: %v), want at most %d", tc.headline, n, utf8.ValidString(got), SummaryLength)
		}
	}
}
