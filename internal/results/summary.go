package results

import (
	"strings"
	"unicode/utf8"
)

// SummaryLength bounds status.summary, the Result column of kubectl get: the headline can
// run to hundreds of characters (long target and scenario names, an inconclusive headline's
// reason), and one long row widens the whole table.
const SummaryLength = 64

// Summary is the headline for the printer column: an inconclusive headline without its
// parenthesized reason, then at most SummaryLength characters, the last one "…" when cut.
// status.headline keeps the whole line.
func Summary(headline string) string {
	if rest, ok := strings.CutPrefix(headline, InconclusivePrefix); ok {
		if i := strings.Index(rest, " ("); i >= 0 {
			headline = InconclusivePrefix + rest[:i]
		}
	}
	if utf8.RuneCountInString(headline) <= SummaryLength {
		return headline
	}
	runes := []rune(headline)
	return string(runes[:SummaryLength-1]) + "…"
}
