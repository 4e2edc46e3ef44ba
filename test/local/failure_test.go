package local_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Ctrl-C in the middle of a run with PostgreSQL and PgBouncer up: every process stops, the
// status says Interrupted and keeps the trial already measured.
func TestInterruptWritesPartialStatus(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: interrupted}
spec:
  targets: [{name: go, preset: go-nethttp}]
  database: {pooler: {poolMode: Transaction}, preparedStatements: Disabled}
  scenarios: [{name: db, workload: db-ping}]
  load: {rates: [100], warmup: 1s, duration: 3s, repetitions: 3}
`, nil)
	// Trial 1/4 is the generator floor; 3/4 is the second repetition.
	c.waitFor(t, "trial 3/4", 90*time.Second)
	time.Sleep(1500 * time.Millisecond)
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 60*time.Second); code != int(outcome.Failed) {
		t.Errorf("exit status %d, want %d (Failed)", code, outcome.Failed)
	}
	if !strings.Contains(c.stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted")
	}
	st := c.status(t).Status
	if st.Phase != benchv1.PhaseFailed || st.FinishedAt == nil || st.Progress != "2/4" {
		t.Errorf("phase %s, progress %s, finished %v", st.Phase, st.Progress, st.FinishedAt)
	}
	if !hasCondition(st, "Complete", "False", "Interrupted") || !hasCondition(st, "DatabaseReady", "True", "Started") {
		t.Errorf("conditions %+v", st.Conditions)
	}
	if tr := st.Trials[1]; tr.Phase != benchv1.TrialSucceeded || tr.Result == nil || tr.Result.Errors != 0 {
		t.Errorf("trial 1: %s %q %+v", tr.Phase, tr.Message, tr.Result)
	}
	if tr := st.Trials[2]; tr.Phase != benchv1.TrialPending || !strings.Contains(tr.Message, "interrupted") || tr.Result != nil {
		t.Errorf("trial 2: %s %q", tr.Phase, tr.Message)
	}
	if len(st.Results) != 1 || st.Results[0].Repetitions != 1 {
		t.Errorf("rows %+v: want one row with the one measured repetition", st.Results)
	}
	// The target ran under its (default) limits, and its cgroup went with the interruption.
	if len(st.Targets) != 1 || st.Targets[0].Limits == nil || !st.Targets[0].Limits.Applied || st.Targets[0].Limits.CPUQuotaMicros != 100_000 {
		t.Errorf("status.targets %+v: want go's limits applied (1 CPU: 100000 µs per period)", st.Targets)
	}
	left, _ := filepath.Glob("/sys/fs/cgroup/*/gauntlet-local-interrupted-" + strconv.Itoa(c.cmd.Process.Pid))
	more, _ := filepath.Glob("/sys/fs/cgroup/*/*/*/gauntlet-local-interrupted-" + strconv.Itoa(c.cmd.Process.Pid))
	if len(left)+len(more) > 0 {
		t.Errorf("cgroups left after the interruption: %v %v", left, more)
	}
}

// A target killed mid-trial fails that trial with its exit and output; the run goes on,
// restarting it for the next repetition.
func TestTargetCrashFailsOnlyItsTrial(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: crash}
spec:
  targets: [{name: go, preset: go-nethttp}]
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [100], warmup: 1s, duration: 3s, repetitions: 2}
`, nil)
	c.waitFor(t, "trial 2/3", 90*time.Second) // after the generator floor's trial
	time.Sleep(1500 * time.Millisecond)
	server := descendant(c.cmd.Process.Pid, ".build/server")
	if server == 0 {
		t.Fatal("the go-nethttp server is not among the CLI's descendants")
	}
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 90*time.Second); code != int(outcome.Failed) {
		t.Errorf("exit status %d, want %d (Failed: a trial failed)", code, outcome.Failed)
	}
	st := c.status(t).Status
	if tr := st.Trials[1]; tr.Phase != benchv1.TrialFailed || !strings.Contains(tr.Message, "exited during the trial") ||
		!strings.Contains(tr.Message, "signal: killed") {
		t.Errorf("trial 1: %s %q", tr.Phase, tr.Message)
	}
	if tr := st.Trials[2]; tr.Phase != benchv1.TrialSucceeded || tr.Result == nil {
		t.Errorf("trial 2 after the restart: %s %q", tr.Phase, tr.Message)
	}
	if st.Phase != benchv1.PhaseFailed || len(st.Results) != 1 || st.Results[0].Repetitions != 1 ||
		!strings.Contains(strings.Join(st.Results[0].Flags, ","), "FailedRepetitions") {
		t.Errorf("phase %s, rows %+v", st.Phase, st.Results)
	}
}

// PgBouncer killed while a db-ping trial runs: that trial fails naming PgBouncer, not the
// target; the later db-ping trial is not timed; the ping trials, which never read the
// database, are measured; DatabaseReady turns False with the cause.
func TestDatabaseLossFailsOnlyTheTrialsThatReadIt(t *testing.T) {
	testenv.Long(t)
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: db-loss}
spec:
  targets: [{name: go, preset: go-nethttp}]
  database: {connectVia: Pooler, pooler: {poolMode: Transaction}}
  scenarios: [{name: db, workload: db-ping}, {name: ping, workload: ping}]
  load: {rates: [100], warmup: 1s, duration: 3s, repetitions: 2}
`, nil)
	c.waitFor(t, "go  db @ 100", 120*time.Second)
	time.Sleep(1500 * time.Millisecond)
	bouncer := descendant(c.cmd.Process.Pid, "pgbouncer")
	if bouncer == 0 {
		t.Fatal("PgBouncer is not among the CLI's descendants")
	}
	if err := syscall.Kill(bouncer, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 120*time.Second); code != int(outcome.Failed) {
		t.Errorf("exit status %d, want %d (Failed: a trial failed)", code, outcome.Failed)
	}
	st := c.status(t).Status
	var killedIn, notTimed, pings int
	for _, tr := range st.Trials {
		switch {
		case tr.Calibration:
		case tr.Scenario == "ping" && tr.Phase == benchv1.TrialSucceeded && tr.Result != nil:
			pings++
		case tr.Scenario == "db" && strings.Contains(tr.Message, "the database failed, not the target: PgBouncer exited during the run"):
			killedIn++
		case tr.Scenario == "db" && strings.HasPrefix(tr.Message, "not timed: PgBouncer exited during the run"):
			notTimed++
		default:
			t.Errorf("trial %s: %s %q", tr.Name, tr.Phase, tr.Message)
		}
	}
	if killedIn != 1 || notTimed != 1 || pings != 2 {
		t.Errorf("db trials failed by the kill %d, not timed after it %d, ping trials measured %d: want 1, 1, 2", killedIn, notTimed, pings)
	}
	if cond := meta.FindStatusCondition(st.Conditions, benchv1.ConditionDatabaseReady); cond == nil ||
		cond.Status != metav1.ConditionFalse || cond.Reason != "DatabaseExited" || !strings.Contains(cond.Message, "PgBouncer") {
		t.Errorf("DatabaseReady %+v, want False, DatabaseExited, naming PgBouncer", cond)
	}
}

// Inputs the local mode refuses, each with an error that names what to fix and exit status
// 2 (Usage); a missing k6 is the machine's, not the input's: 1 (Error). Nothing starts.
func TestRefusals(t *testing.T) {
	testenv.Long(t)
	base := func(target, load string) string {
		return "apiVersion: gauntlet.dev/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: refused}\nspec:\n" +
			"  targets: [" + target + "]\n  scenarios: [{name: ping, workload: ping}]\n  load: " + load + "\n"
	}
	ok := base("{name: go, preset: go-nethttp}", "{rates: [100]}")
	for _, tc := range []struct {
		name, spec string
		env, args  []string
		want       string
	}{
		{"image", base("{name: mine, image: example.com/mine:1, port: 8080}", "{rates: [100]}"), nil, nil, "spec.targets[0].image"},
		{"schema", base("{name: go, preset: go-nethttp}", "{rates: [0]}"), nil, nil, "spec.load.rates"},
		{"scale", ok, nil, []string{"--scale", "-1"}, "--scale"},
		{"scale collision", base("{name: go, preset: go-nethttp}", "{rates: [100, 101]}"), nil, []string{"--scale", "0.001"}, "spec.load.rates[1]"},
		{"k6 missing", ok, []string{"GAUNTLET_K6=/nonexistent/k6"}, nil, "hack/k6.sh"},
		// Someone else's YAML: server-side hooks and loader variables, each named by its field.
		{"archive_command", strings.Replace(ok, "  scenarios:", "  database: {parameters: {archive_command: 'touch /tmp/pwned'}}\n  scenarios:", 1),
			nil, nil, "spec.database.parameters.archive_command"},
		{"pooler auth_query", strings.Replace(ok, "  scenarios:", "  database: {pooler: {parameters: {auth_query: 'SELECT 1'}}}\n  scenarios:", 1),
			nil, nil, "spec.database.pooler.parameters.auth_query"},
		{"LD_PRELOAD", base("{name: go, preset: go-nethttp, env: [{name: GODEBUG, value: x}, {name: LD_PRELOAD, value: /tmp/x.so}]}", "{rates: [100]}"),
			nil, nil, "spec.targets[0].env[1].name"},
		{"dotted name", strings.Replace(ok, "name: refused", "name: a.b", 1), nil, nil, "metadata.name"},
		{"generateName", strings.Replace(ok, "{name: refused}", "{generateName: ../../x-}", 1), nil, nil, "metadata.generateName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, tc.spec, tc.env, tc.args...)
			want := outcome.Usage
			if tc.name == "k6 missing" {
				want = outcome.Error
			}
			if code := c.wait(t, 60*time.Second); code != int(want) {
				t.Errorf("exit status %d, want %d (%s)", code, want, want)
			}
			if !strings.Contains(c.stderr.String(), tc.want) {
				t.Errorf("stderr does not name %q:\n%s", tc.want, c.stderr)
			}
			if _, err := os.Stat(c.out); err == nil {
				t.Errorf("a results folder was created for a refused run")
			}
		})
	}
}

func hasCondition(st benchv1.BenchmarkRunStatus, typ, status, reason string) bool {
	for _, c := range st.Conditions {
		if c.Type == typ && string(c.Status) == status && c.Reason == reason {
			return true
		}
	}
	return false
}

// descendant finds a process under root whose command line contains name.
func descendant(root int, name string) int {
	parents := map[int]int{}
	for pid, p := range supervise.Procs() {
		parents[pid] = p.PPID
	}
	for pid := range parents {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if !strings.Contains(string(cmdline), name) {
			continue
		}
		for p := parents[pid]; p > 1; p = parents[p] {
			if p == root {
				return pid
			}
		}
	}
	return 0
}

// A run none of whose targets can start stops there: no generator floor, no trial, the
// cause said once in the status and on stderr.
func TestNoReadyTargetStopsBeforeAnyTrial(t *testing.T) {
	testenv.Long(t)
	// An unparsable GOMEMLIMIT stops a Go program before main: both targets exit at start.
	c := start(t, `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: none-ready}
spec:
  targets:
  - {name: go-a, preset: go-nethttp, env: [{name: GOMEMLIMIT, value: lots}]}
  - {name: go-b, preset: go-nethttp, env: [{name: GOMEMLIMIT, value: lots}]}
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [100, 200], warmup: 1s, duration: 3s, repetitions: 2}
`, nil)
	if code := c.wait(t, 90*time.Second); code == 0 {
		t.Fatal("exit status 0 for a run with no target")
	}
	st := c.status(t).Status
	if st.Phase != benchv1.PhaseFailed || !hasCondition(st, "Complete", "False", "SetupFailed") {
		t.Fatalf("phase %s, conditions %+v", st.Phase, st.Conditions)
	}
	for _, cond := range st.Conditions {
		if cond.Type == "Complete" && (!strings.Contains(cond.Message, "no target is ready") ||
			!strings.Contains(cond.Message, "go-a") || !strings.Contains(cond.Message, "GOMEMLIMIT")) {
			t.Errorf("Complete: %q: want the cause and the targets named", cond.Message)
		}
	}
	for _, tr := range st.Trials {
		if tr.Result != nil || tr.Phase == benchv1.TrialSucceeded || tr.Phase == benchv1.TrialPending {
			t.Errorf("trial %s: %s %q: nothing should have been timed", tr.Name, tr.Phase, tr.Message)
		}
		if tr.Calibration && tr.Phase != benchv1.TrialSkipped {
			t.Errorf("the generator floor's trial %s: %s, want Skipped", tr.Name, tr.Phase)
		}
	}
	if strings.Contains(c.stderr.String(), "trial 1/") {
		t.Errorf("a trial started:\n%s", c.stderr)
	}
}
