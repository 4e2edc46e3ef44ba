package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// historyFolder writes one results folder per p50 (µs, go/ping@200, five repetitions within
// ±1.5%), an hour apart, as `run --local` writes them, and returns the folder holding them.
func historyFolder(t *testing.T, p50s ...int64) string {
	t.Helper()
	root := t.TempDir()
	noise := []int64{0, 7, -5, 3, -8, 6, -2, 4, -6, 1, 8, -3, 5, -7, 2, -4, 6, -1}
	for i, p50 := range p50s {
		name := fmt.Sprintf("nightly-%02d", i)
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}}, Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}}}
		for rep := range 5 {
			v := p50 + p50*noise[(i+rep)%len(noise)]/500
			run.Status.Trials = append(run.Status.Trials, benchv1.Trial{Name: fmt.Sprintf("%s-%d", name, rep), Target: "go", Scenario: "ping",
				LoadPoint: 200, Repetition: int32(rep + 1), Phase: benchv1.TrialSucceeded,
				Result: &benchv1.Measurement{Requests: 2000, AchievedMilliRPS: 200_000, P50Micros: v, P99Micros: 3 * v}})
		}
		at := metav1.NewTime(time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC))
		run.Status.StartedAt, run.Status.FinishedAt = &at, &at
		run.Status.Results = results.Aggregate(&run.Spec, run.Status.Trials)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteOutputs(dir, run); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func levels(n int, at int, before, after int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = before
		if i >= at {
			out[i] = after
		}
	}
	return out
}

// runHistory runs `gauntlet history` as main does; it returns the exit status and all output.
func runHistory(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	return code, stdout + stderr
}

// The exit statuses docs/history.md promises, from the real main: 0 without a new
// regression, 3 with one, 1 on bad input.
func TestHistoryExitCodes(t *testing.T) {
	unchanged := historyFolder(t, levels(14, 14, 500, 500)...)
	regressed := historyFolder(t, levels(14, 10, 500, 600)...)    // +20% from run 10: within the newest 5
	oldRegression := historyFolder(t, levels(20, 6, 500, 600)...) // +20% from run 6: long accepted
	improved := historyFolder(t, levels(14, 10, 600, 500)...)
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "status.yaml"), []byte("kind: BenchmarkRun\nspec: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unchanged", []string{"history", unchanged}, 0, "no regression starting within the newest 5 runs"},
		{"regressed", []string{"history", regressed}, 3, "#11 nightly-10"},
		{"regressed, json", []string{"history", "-o", "json", regressed}, 3, `"regressed": true`},
		{"regressed, older than --last", []string{"history", "--last", "3", regressed}, 0, "Slower"},
		{"old regression", []string{"history", oldRegression}, 0, "#7 nightly-06"},
		{"improvement", []string{"history", improved}, 0, "Faster"},
		{"no such folder", []string{"history", filepath.Join(unchanged, "nope")}, 1, "no such file"},
		{"no runs", []string{"history", t.TempDir()}, 1, "no BenchmarkRun found"},
		{"no runs of that name", []string{"history", "--name", "weekly", regressed}, 1, "no BenchmarkRun found (status.yaml files or exported runs named weekly)"},
		{"runs of that name", []string{"history", "--name", "nightly-03", regressed}, 0, "1 run, 2026-01-01T03:00:00Z (nightly-03)"},
		{"broken status.yaml", []string{"history", broken}, 1, "status.yaml"},
		{"bad output", []string{"history", "-o", "xml", unchanged}, 1, `-o "xml"`},
		{"bad figure", []string{"history", "--figures", "p42", unchanged}, 1, `"p42"`},
		{"bad p-value", []string{"history", "--max-pvalue", "2", unchanged}, 1, "max p-value"},
	} {
		code, out := runHistory(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d (want %d), want %q in:\n%s", c.name, code, c.code, c.want, out)
		}
	}
	// The JSON is the report: the change point at run 10, +20%, Slower and recent.
	_, out := runHistory(t, "history", "-o", "json", "--figures", "p50", regressed)
	var rep struct {
		Regressions int
		Series      []struct {
			Figure       string
			ChangePoints []struct {
				Run           int
				ChangePercent float64
				Direction     string
				Recent        bool
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Regressions != 1 || len(rep.Series) != 1 || len(rep.Series[0].ChangePoints) != 1 {
		t.Fatalf("%+v", rep)
	}
	if c := rep.Series[0].ChangePoints[0]; c.Run != 10 || c.ChangePercent < 19 || c.ChangePercent > 21 || c.Direction != "Slower" || !c.Recent {
		t.Fatalf("%+v", c)
	}
}

// -o markdown for a pull request: the answer in the heading, the new alert in a table row
// of its own, the change points folded away, and the exit status of the text output.
func TestHistoryMarkdown(t *testing.T) {
	regressed := historyFolder(t, levels(14, 10, 500, 600)...)
	code, out := runHistory(t, "history", "-o", "markdown", "--figures", "p50", regressed)
	if code != 3 || !strings.HasPrefix(out, "### Gauntlet history: 1 regression(s) starting within the newest 5 runs") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var alert []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| go/ping@200 | p50 | #11 `nightly-10`") && strings.HasSuffix(l, "| **new alert** |") {
			alert = append(alert, l)
		}
	}
	if len(alert) != 1 || !strings.Contains(out, "<details><summary>Change points</summary>") || !strings.Contains(out, "0 of 1 series without a change point") {
		t.Fatalf("want one new alert row and the change points folded:\n%s", out)
	}
	if code, out := runHistory(t, "history", "-o", "markdown", historyFolder(t, levels(14, 14, 500, 500)...)); code != 0 ||
		!strings.Contains(out, "No regression") || strings.Contains(out, "| row |") {
		t.Fatalf("unchanged: exit %d:\n%s", code, out)
	}
}
