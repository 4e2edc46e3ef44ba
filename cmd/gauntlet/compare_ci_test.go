package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The outputs a CI job posts on a pull request: Markdown with the answer first and a table
// whose rows stay rows (a pipe in a run's text cannot split a cell), and JSON a script reads;
// the exit status under --fail-on-regression is the same as the table's.
func TestCompareForPullRequests(t *testing.T) {
	before := writeRun(t, "before", 500, 505, 498, 502, 501)
	after := writeRun(t, "after|<b>x</b>", 600, 606, 597, 603, 601)
	md, err := runCompare("-o", "markdown", "--fail-on-regression", before, after)
	if !errors.Is(err, errRegressed) {
		t.Fatalf("--fail-on-regression with -o markdown: %v", err)
	}
	lines := strings.Split(md, "\n")
	if !strings.HasPrefix(lines[0], "### Gauntlet: after\\|&lt;b&gt;x&lt;/b&gt;") || !strings.Contains(md, "**Regressed=True") {
		t.Fatalf("the answer is not first, or the name is not escaped:\n%s", md)
	}
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| go/ping") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1 || !strings.Contains(rows[0], "**Slower**") || !strings.Contains(rows[0], "501µs (n=5)") ||
		strings.Count(rows[0], " | ")-strings.Count(rows[0], `\|`) != 9 {
		t.Fatalf("want one row of 10 cells, Slower in bold:\n%s", md)
	}
	js, err := runCompare("-o", "json", before, after)
	if err != nil {
		t.Fatal(err)
	}
	var got comparisonJSON
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("%v in:\n%s", err, js)
	}
	if len(got.Rows) != 1 || got.Rows[0].Target != "go" || got.Rows[0].Comparison.Verdict != "Slower" ||
		got.Regressed == nil || got.Regressed.Status != "True" || got.Baseline == nil || got.Baseline.Metric != "p50" {
		t.Fatalf("%+v", got)
	}
	if _, err := runCompare("-o", "html", before, after); err == nil || !strings.Contains(err.Error(), `-o "html"`) {
		t.Fatalf("-o html: %v", err)
	}
}
