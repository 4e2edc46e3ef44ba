package main

import (
	"os"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func row(target string, rps, p99, errPPM int64, valid bool) benchv1.ResultRow {
	r := benchv1.ResultRow{Target: target, Scenario: "s", LoadPoint: 10, Repetitions: 1, Valid: valid,
		AchievedMilliRPS: benchv1.Stat{Median: rps * 1000}, P99Micros: benchv1.Stat{Median: p99},
		ErrorRatePPM: benchv1.Stat{Median: errPPM}}
	if !valid {
		r.Flags = []string{"GeneratorBound"}
	}
	return r
}

func runOf(rows ...benchv1.ResultRow) *run {
	br := &benchv1.BenchmarkRun{}
	br.Status.Results = rows
	return &run{BR: br}
}

func TestDecide(t *testing.T) {
	runs := map[string]*run{
		"d":   runOf(row("go", 900, 500, 400_000, true), row("node", 800, 900, 0, true), row("py", 100, 9000, 770_000, true)),
		"bad": runOf(row("go", 900, 500, 0, false), row("node", 800, 900, 0, true)),
	}
	cases := []struct {
		c       check
		verdict string
		ev      string
	}{
		{check{Kind: "errors", Doc: "d", Targets: []string{"go", "py"}}, Reproduced, "py 77% errors"},
		{check{Kind: "errors", Doc: "d", Targets: []string{"go"}}, NotReproduced, ""},
		{check{Kind: "lower", Doc: "d", Scenario: "s", A: "go", B: "node", Figures: []string{"p99"}}, Reproduced, "p99 go 500µs vs node 900µs"},
		{check{Kind: "lower", Doc: "d", Scenario: "s", A: "node", B: "go", Figures: []string{"p99"}}, NotReproduced, ""},
		{check{Kind: "rps-order", Doc: "d", Scenario: "s", Order: []string{"go", "node", "py"}}, Reproduced, "go 900 req/s"},
		{check{Kind: "rps-order", Doc: "d", Scenario: "s", Order: []string{"py", "go"}}, NotReproduced, ""},
		{check{Kind: "highest-rps", Doc: "d", Scenario: "s", A: "go"}, Reproduced, ""},
		{check{Kind: "highest-rps", Doc: "d", Scenario: "s", A: "node"}, NotReproduced, ""},
		{check{Kind: "lower", Doc: "bad", Scenario: "s", A: "go", B: "node", Figures: []string{"p99"}}, NotComparable, "GeneratorBound"},
		{check{Kind: "lower", Doc: "missing", Scenario: "s", A: "go", B: "node"}, NotRun, ""},
		{check{Kind: "keepalive-gain", On: "d", Off: "bad", Scenario: "s", A: "go", Others: []string{"node"}}, NotComparable, "invalid"},
	}
	for _, c := range cases {
		v, ev := decide(c.c, runs)
		if v != c.verdict || !strings.Contains(ev, c.ev) {
			t.Errorf("%+v: got %s (%s), want %s containing %q", c.c, v, ev, c.verdict, c.ev)
		}
	}
}

// The published data parses strictly and every finding names a check kind decide knows.
func TestPublishedData(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir, "published.yaml", dir+"/out.md"); err != nil {
		t.Fatal(err)
	}
	out := readFile(t, dir+"/out.md")
	for _, id := range []string{"000", "001", "002", "003", "004"} {
		if !strings.Contains(out, "## Seed "+id) {
			t.Errorf("seed %s missing from the page", id)
		}
	}
	if strings.Contains(out, "unknown check") {
		t.Errorf("a finding names an unknown check:\n%s", out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
