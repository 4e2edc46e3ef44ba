package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The cluster commands' tests run against a real kube-apiserver (envtest), read through a
// kubeconfig file as a user's would be; it starts with the first of them.
var (
	clusterOnce sync.Once
	cluster     *testenv.Env
	kubeconfig  string
	clusterErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		_ = cluster.Stop()
	}
	if kubeconfig != "" {
		_ = os.RemoveAll(filepath.Dir(kubeconfig))
	}
	os.Exit(code)
}

func startCluster(t *testing.T) {
	t.Helper()
	clusterOnce.Do(func() {
		if cluster, clusterErr = testenv.Start(); clusterErr != nil {
			return
		}
		var cfg []byte
		if cfg, clusterErr = cluster.KubeConfig("tester", "system:masters"); clusterErr != nil {
			return
		}
		dir, err := os.MkdirTemp("", "gauntlet-cli-")
		if clusterErr = err; err != nil {
			return
		}
		kubeconfig = filepath.Join(dir, "kubeconfig")
		clusterErr = os.WriteFile(kubeconfig, cfg, 0o600)
	})
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
}

// gauntlet runs the CLI against the test's cluster (runCLI with its kubeconfig).
func gauntlet(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLI(t, append(args, "--kubeconfig", kubeconfig)...)
}

// runCLI runs the CLI in this process as main does; it returns the exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	root := &cobra.Command{Use: "gauntlet", SilenceUsage: true, SilenceErrors: true}
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	markUsage(root)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	code = reportError(root.ExecuteContext(context.Background()), &errOut)
	return code, out.String(), errOut.String()
}

// outcomes are the ends a run can have, as the operator records them.
var outcomes = map[string]struct {
	phase benchv1.Phase
	conds []metav1.Condition
	want  outcome.Code
}{
	"succeeded": {benchv1.PhaseSucceeded, []metav1.Condition{
		cond(benchv1.ConditionReady, true, "Succeeded", "best p99: go 1.9ms @ 200/s"),
		cond(benchv1.ConditionSLOMet, true, "SLOMet", "every result row meets the SLO"),
		cond(benchv1.ConditionRegressed, false, "NoChange", "no row is slower")}, outcome.OK},
	"failed": {benchv1.PhaseFailed, []metav1.Condition{
		cond(benchv1.ConditionReady, false, "Failed", "trial t2 failed: the target exited"),
		cond(benchv1.ConditionSLOMet, false, "SLOMissed", "missed by go/ping@200")}, outcome.Failed},
	"slo-missed": {benchv1.PhaseSucceeded, []metav1.Condition{
		cond(benchv1.ConditionReady, true, "Succeeded", ""),
		cond(benchv1.ConditionSLOMet, false, "SLOMissed", "missed by go/ping@200"),
		cond(benchv1.ConditionRegressed, true, "Slower", "slower: go/ping@200 +20.0%")}, outcome.SLOMissed},
	"regressed": {benchv1.PhaseSucceeded, []metav1.Condition{
		cond(benchv1.ConditionReady, true, "Succeeded", ""),
		cond(benchv1.ConditionRegressed, true, "Slower", "slower: go/ping@200 +20.0%")}, outcome.Regressed},
	// Every row flagged: the run succeeded but supports no answer.
	"inconclusive": {benchv1.PhaseSucceeded, []metav1.Condition{
		cond(benchv1.ConditionReady, false, "Inconclusive", "inconclusive: 0 of 2 rows valid; invalid rows' flags: GeneratorBound 2"),
		cond(benchv1.ConditionConclusive, false, "NoValidResult", "0 of 2 rows valid; invalid rows' flags: GeneratorBound 2"),
		cond(benchv1.ConditionSLOMet, true, "SLOMet", "every result row meets the SLO")}, outcome.Inconclusive},
	// The baseline could not be read: no verdict, and no pass either.
	"no-verdict": {benchv1.PhaseSucceeded, []metav1.Condition{
		cond(benchv1.ConditionReady, true, "Succeeded", ""),
		{Type: benchv1.ConditionRegressed, Status: metav1.ConditionUnknown, Reason: "BaselineUnavailable", Message: "baseline run nightly-1 not found", LastTransitionTime: metav1.Now()}},
		outcome.Inconclusive},
	"running": {benchv1.PhaseRunning, []metav1.Condition{
		cond(benchv1.ConditionReady, false, "Running", "trials 1/3")}, outcome.OK},
}

func cond(typ string, ok bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()}
}

// createRun creates a run named name in a new namespace with the status of that outcome and
// two measured repetitions of go/ping@200; it returns the namespace.
func createRun(t *testing.T, name string) (string, *benchv1.BenchmarkRun) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cli-"}}
	if err := cluster.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}}
	run.Spec = benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{200}, Warmup: "10s", Duration: "1m", Repetitions: 3}}
	if err := cluster.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	o := outcomes[name]
	st := &run.Status
	now := metav1.Now()
	st.Phase, st.Conditions, st.StartedAt, st.TargetNames = o.phase, o.conds, &now, "go"
	for i := range 3 {
		tr := benchv1.Trial{Name: fmt.Sprintf("t%d", i+1), Index: int32(i), Target: "go", Scenario: "ping", LoadPoint: 200,
			Repetition: int32(i + 1), Phase: benchv1.TrialSucceeded,
			Result: &benchv1.Measurement{Requests: 12000, AchievedMilliRPS: 200_000, P50Micros: 900 + int64(i), P99Micros: 1900 + int64(i)}}
		if i == 2 && o.phase == benchv1.PhaseRunning {
			tr.Phase, tr.Result = benchv1.TrialPending, nil
			eta := metav1.NewTime(now.Add(90 * time.Second))
			st.EstimatedFinishAt = &eta
		}
		st.Trials = append(st.Trials, tr)
	}
	st.Results = results.Aggregate(&run.Spec, st.Trials)
	st.Progress, st.Headline = results.Progress(st.Trials), results.Headline(st.Results)
	if outcome.Finished(run) {
		st.FinishedAt = &now
	}
	if err := cluster.Client.Status().Update(ctx, run); err != nil {
		t.Fatal(err)
	}
	return ns.Name, run
}

// wait exits with the run's outcome: 0, 5, 4, 3, 7; and 6 when --timeout passes first.
func TestWaitExitStatus(t *testing.T) {
	startCluster(t)
	for _, name := range []string{"succeeded", "failed", "slo-missed", "regressed", "inconclusive", "no-verdict"} {
		t.Run(name, func(t *testing.T) {
			ns, _ := createRun(t, name)
			code, stdout, stderr := gauntlet(t, "wait", name, "-n", ns, "--timeout", "30s", "--interval", "100ms")
			if want := outcomes[name].want; code != int(want) {
				t.Errorf("exit status %d, want %d (%s)\nstdout:\n%s\nstderr:\n%s", code, want, want, stdout, stderr)
			}
			if !strings.Contains(stdout, fmt.Sprintf("outcome: %s (exit status %d)", outcomes[name].want, outcomes[name].want)) {
				t.Errorf("stdout does not state the outcome:\n%s", stdout)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		ns, _ := createRun(t, "running")
		began := time.Now()
		code, _, stderr := gauntlet(t, "wait", "running", "-n", ns, "--timeout", "1s", "--interval", "100ms")
		if code != int(outcome.Timeout) || !strings.Contains(stderr, "still Running (trials 2/3) after 1s") {
			t.Errorf("exit status %d, want 6; stderr:\n%s", code, stderr)
		}
		if d := time.Since(began); d > 10*time.Second {
			t.Errorf("wait --timeout 1s took %s", d)
		}
		if !strings.Contains(stderr, "running: Running, trials 2/3, estimated finish ") {
			t.Errorf("stderr does not show the progress with the estimated finish:\n%s", stderr)
		}
	})
	t.Run("finishes while waited on", func(t *testing.T) {
		ns, run := createRun(t, "running")
		go func() {
			time.Sleep(time.Second)
			run.Status.Phase, run.Status.Conditions = benchv1.PhaseSucceeded, outcomes["regressed"].conds
			run.Status.Trials[2].Phase, run.Status.Trials[2].Result = benchv1.TrialSucceeded, run.Status.Trials[1].Result
			run.Status.Progress = results.Progress(run.Status.Trials)
			if err := cluster.Client.Status().Update(context.Background(), run); err != nil {
				t.Error(err)
			}
		}()
		code, stdout, stderr := gauntlet(t, "wait", "running", "-n", ns, "--timeout", "30s", "--interval", "100ms", "-o", "json")
		var s runStatus
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("-o json: %v\n%s", err, stdout)
		}
		if code != int(outcome.Regressed) || s.Outcome != "Regressed" || s.ExitCode == nil || *s.ExitCode != 3 || s.Progress != "3/3" {
			t.Errorf("exit status %d, status %+v; want 3, Regressed, 3/3\nstderr:\n%s", code, s, stderr)
		}
		if !strings.Contains(stderr, "running: Running, trials 2/3") || !strings.Contains(stderr, "running: Succeeded, trials 3/3") {
			t.Errorf("stderr does not follow the progress:\n%s", stderr)
		}
	})
	t.Run("no such run", func(t *testing.T) {
		code, _, stderr := gauntlet(t, "wait", "absent", "-n", "default", "--timeout", "5s")
		if code != int(outcome.Error) || !strings.Contains(stderr, `no BenchmarkRun "absent" in namespace "default"`) {
			t.Errorf("exit status %d, want 1; stderr:\n%s", code, stderr)
		}
	})
}

// status prints the run as text (with its results table) or as data; 0 whenever read.
func TestStatus(t *testing.T) {
	startCluster(t)
	ns, _ := createRun(t, "slo-missed")
	code, stdout, stderr := gauntlet(t, "status", "slo-missed", "-n", ns)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	t.Logf("gauntlet status slo-missed:\n%s", stdout)
	for _, want := range []string{"slo-missed (namespace " + ns + "): Succeeded, trials 3/3", "outcome: SLOMissed (exit status 4): missed by go/ping@200",
		"SLOMet", "go", "ping"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status does not say %q:\n%s", want, stdout)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		code, stdout, _ := gauntlet(t, "status", "slo-missed", "-n", ns, "-o", format)
		if code != 0 || !strings.Contains(stdout, "SLOMissed") || !strings.Contains(stdout, "exitCode") {
			t.Errorf("-o %s: exit %d\n%s", format, code, stdout)
		}
	}
	var s runStatus
	_, stdout, _ = gauntlet(t, "status", "slo-missed", "-n", ns, "-o", "json")
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Phase != benchv1.PhaseSucceeded || len(s.Results) != 1 || s.Results[0].Repetitions != 3 {
		t.Errorf("-o json: %v %+v", err, s)
	}

	ns, _ = createRun(t, "running")
	_, stdout, _ = gauntlet(t, "status", "running", "-n", ns)
	if !strings.Contains(stdout, "Running, trials 2/3, estimated finish ") || strings.Contains(stdout, "outcome:") {
		t.Errorf("a running run's status:\n%s", stdout)
	}
	if code, _, stderr := gauntlet(t, "status", "running", "-n", ns, "-o", "table"); code != int(outcome.Usage) || !strings.Contains(stderr, "-o/--output") {
		t.Errorf("-o table: exit %d, %s", code, stderr)
	}
	if code, _, _ := gauntlet(t, "status"); code != int(outcome.Usage) {
		t.Errorf("no RUN: exit %d, want 2", code)
	}
}

// report writes run --local's report from the cluster object: the rows and the charts.
func TestReport(t *testing.T) {
	startCluster(t)
	ns, run := createRun(t, "succeeded")
	out := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr := gauntlet(t, "report", "succeeded", "-n", ns, "--out", out)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	row := run.Status.Results[0]
	for _, want := range []string{"<html", "<svg", "succeeded", ">go<", results.FormatMicros(row.P99Micros.Median)} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	_, stdout, _ := gauntlet(t, "report", "succeeded", "-n", ns, "--out", "-")
	if stdout != string(html) {
		t.Errorf("--out - wrote %d bytes to stdout, the file has %d", len(stdout), len(html))
	}
}

// schedule trigger sets the run-now annotation, a new value each time, and says so; a
// suspended schedule is said to wait; a schedule that is not there is named.
func TestScheduleTrigger(t *testing.T) {
	ctx := context.Background()
	ns, s := suspendedSchedule(t)
	annotation := func() string {
		got := &benchv1.BenchmarkSchedule{}
		if err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
			t.Fatal(err)
		}
		return got.Annotations[benchv1.AnnotationRunNow]
	}
	code, stdout, stderr := gauntlet(t, "schedule", "trigger", "nightly", "-n", ns.Name)
	first := annotation()
	if code != 0 || first == "" || stdout != "nightly: run requested (gauntlet.dev/run-now="+first+")\nnightly is suspended: the run starts when spec.suspend is false\n" {
		t.Fatalf("exit %d, annotation %q\nstdout:\n%s\nstderr:\n%s", code, first, stdout, stderr)
	}
	if code, _, _ := gauntlet(t, "schedule", "trigger", "nightly", "-n", ns.Name); code != 0 || annotation() == first {
		t.Fatalf("a second trigger: exit %d, annotation %q, the same as the first", code, annotation())
	}
	if code, _, _ := gauntlet(t, "schedule", "trigger", "nightly", "-n", ns.Name, "--value", "release-1.2"); code != 0 || annotation() != "release-1.2" {
		t.Fatalf("--value: exit %d, annotation %q", code, annotation())
	}
	code, _, stderr = gauntlet(t, "schedule", "trigger", "weekly", "-n", ns.Name)
	if code == 0 || !strings.Contains(stderr, `no BenchmarkSchedule "weekly" in namespace "`+ns.Name+`"`) {
		t.Fatalf("a missing schedule: exit %d, stderr %s", code, stderr)
	}
}

// gauntlet schedule triage appends to spec.triage what a Git commit would: Acknowledge by
// default, Accept with --accept, narrowed by the flags; the same entry twice is one entry;
// the API server refuses a figure it does not know; it says when no alert starts at RUN and
// prints the entry to commit.
func TestScheduleTriage(t *testing.T) {
	ctx := context.Background()
	ns, s := suspendedSchedule(t)
	s.Status.Alerts = []benchv1.ScheduleChangePoint{{Target: "go", Scenario: "ping", LoadPoint: 200, Figure: "p50", Run: "nightly-29", Direction: "Slower", DetectedAt: metav1.Now()}}
	if err := cluster.Client.Status().Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	triage := func() []benchv1.ScheduleTriage {
		got := &benchv1.BenchmarkSchedule{}
		if err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
			t.Fatal(err)
		}
		return got.Spec.Triage
	}
	code, stdout, stderr := gauntlet(t, "schedule", "triage", "nightly", "nightly-29", "-n", ns.Name, "--note", "a blip")
	if got := triage(); code != 0 || len(got) != 1 || got[0].Run != "nightly-29" || got[0].Action != benchv1.TriageAcknowledge || got[0].Note != "a blip" ||
		!strings.Contains(stdout, "nightly: acknowledged the alerts at nightly-29") || strings.Contains(stdout, "no alert") ||
		!strings.Contains(stdout, "- action: Acknowledge\n  note: a blip\n  run: nightly-29\n") {
		t.Fatalf("exit %d, triage %+v\nstdout:\n%s\nstderr:\n%s", code, got, stdout, stderr)
	}
	if code, stdout, _ := gauntlet(t, "schedule", "triage", "nightly", "nightly-29", "-n", ns.Name); code != 0 || len(triage()) != 1 || !strings.Contains(stdout, "already holds") {
		t.Fatalf("the same entry again: exit %d, %+v\n%s", code, triage(), stdout)
	}
	code, stdout, _ = gauntlet(t, "schedule", "triage", "nightly", "nightly-31", "-n", ns.Name, "--accept", "--figure", "p50", "--load-point", "200")
	if got := triage(); code != 0 || len(got) != 2 || got[1].Action != benchv1.TriageAccept || got[1].Figure != "p50" || got[1].LoadPoint == nil || *got[1].LoadPoint != 200 ||
		!strings.Contains(stdout, "no alert of nightly starts at nightly-31") {
		t.Fatalf("--accept: exit %d, %+v\n%s", code, got, stdout)
	}
	if code, _, stderr := gauntlet(t, "schedule", "triage", "nightly", "nightly-29", "-n", ns.Name, "--figure", "p42"); code == 0 || !strings.Contains(stderr, "figure") || len(triage()) != 2 {
		t.Fatalf("--figure p42: exit %d, %+v\n%s", code, triage(), stderr)
	}
	if code, _, stderr := gauntlet(t, "schedule", "triage", "weekly", "r1", "-n", ns.Name); code == 0 || !strings.Contains(stderr, `no BenchmarkSchedule "weekly"`) {
		t.Fatalf("a missing schedule: exit %d, %s", code, stderr)
	}
}

// suspendedSchedule creates, on the test API server, a namespace and a suspended schedule
// "nightly" in it for the schedule commands to act on.
func suspendedSchedule(t *testing.T) (*corev1.Namespace, *benchv1.BenchmarkSchedule) {
	t.Helper()
	startCluster(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cli-"}}
	if err := cluster.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	s := &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns.Name},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 3 * * *", Suspend: true, Template: benchv1.BenchmarkRunTemplate{Spec: benchv1.BenchmarkRunSpec{
			Targets: []benchv1.Target{{Name: "go", Preset: "go-nethttp"}}, Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load: benchv1.Load{Rates: []int32{200}}}}}}
	if err := cluster.Client.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	return ns, s
}
