//go:build lab && labfull

package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/metrics"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// testRunnerKilled: the k6 process of a runner is SIGKILLed mid-trial on the node (as the
// kernel's OOM killer would): the trial, and with one target the run, end Failed within a
// minute, naming the runner pod and its exit. k6-operator alone would leave the TestRun
// waiting for the runner.
func (l *lab) testRunnerKilled(t *testing.T) {
	name := "drill-runner-killed"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 10*time.Minute)
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, drillRun(t, name, "name: go, preset: go-nethttp", ""), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	if err := l.waitTargetTrial(c, ns, name); err != nil {
		t.Fatalf("waiting for the trial: %v", err)
	}
	run, err := l.getRun(c, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	var trial benchv1.Trial
	for _, tr := range run.Status.Trials {
		if !tr.Calibration && tr.Phase == benchv1.TrialRunning {
			trial = tr
		}
	}
	id := specs.TestID(run, trial.Name)
	pid := k6Process(id)
	if pid == 0 {
		t.Fatalf("no k6 process on the node carries testid=%s", id)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	finished, err := l.waitFinished(c, ns, name, time.Second, 3*time.Minute)
	if finished != nil {
		run = finished // as last read; the run read before the kill otherwise
	}
	took := time.Since(killed)
	if err != nil {
		t.Fatalf("the run did not end within 3 minutes of its runner's kill: %s\n%s", run.Status.Phase, conditions(run.Status.Conditions))
	}
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete)
	t.Logf("runner of %s killed: run %s %s after the kill: %v", trial.Name, run.Status.Phase, took.Round(time.Second), cond)
	if run.Status.Phase != benchv1.PhaseFailed || cond == nil || !strings.Contains(cond.Message, "k6 runner pod "+trial.TestRun) ||
		!strings.Contains(cond.Message, "exited with code 137") {
		t.Errorf("phase %s, Complete %+v: want Failed naming the runner pod and its exit code 137", run.Status.Phase, cond)
	}
	if took > time.Minute {
		t.Errorf("the run took %s after the kill to fail; want under a minute", took.Round(time.Second))
	}
}

// k6Process is the pid of the k6 process whose arguments carry the trial's testid tag, on
// this machine (the lab's containers are its processes); 0 if none.
func k6Process(testID string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		cmd, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if len(args) > 1 && filepath.Base(args[0]) == "k6" && strings.Contains(string(cmd), "testid="+testID) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			return pid
		}
	}
	return 0
}

// runnerSummary is one runner's own end-of-test figures for the measured phase, from the
// summary k6 prints in its pod's log.
type runnerSummary struct {
	pod      string
	requests int64
	p50, p99 time.Duration
}

var (
	// k6 pads its columns with spaces: any run of them separates the fields.
	summaryDuration = regexp.MustCompile(`(?m)^\s+\{ phase:measure \}\.*: avg=\S+\s+min=\S+\s+med=\S+\s+max=\S+\s+p\(50\)=(\S+)\s+p\(90\)=\S+\s+p\(95\)=\S+\s+p\(99\)=(\S+)`)
	summaryRequests = regexp.MustCompile(`(?m)^\s+http_reqs\.*: \d+.*\n\s+\{ phase:measure \}\.*: (\d+)\s`)
)

// parseSummary reads a runner's measured count, p50 and p99 from its log.
func parseSummary(pod, log string) (runnerSummary, error) {
	d, r := summaryDuration.FindStringSubmatch(log), summaryRequests.FindStringSubmatch(log)
	if d == nil || r == nil {
		return runnerSummary{}, fmt.Errorf("pod %s: no measured-phase summary in its log:\n%s", pod, tail(log, 30))
	}
	s := runnerSummary{pod: pod}
	var err1, err2, err3 error
	s.requests, err1 = strconv.ParseInt(r[1], 10, 64)
	s.p50, err2 = time.ParseDuration(d[1])
	s.p99, err3 = time.ParseDuration(d[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return s, fmt.Errorf("pod %s: summary figures %v %v %v", pod, err1, err2, err3)
	}
	return s, nil
}

// testThreeRunners: one target loaded by three k6 runners (loadGenerator.parallelism 3).
// The rate is split between them; the row's k6 percentiles, merged from the three runners'
// native histograms in the real Prometheus, lie within the runners' own (a quantile of a
// mixture lies between its parts', widened by one histogram bucket); the request counts of
// the runners' own summaries add up to k6's measured count and to the wire's; the operator
// counted three runners. The figures are logged beside the wire's.
func (l *lab) testThreeRunners(t *testing.T) {
	name := "three-runners"
	ns := l.restrictedNamespace(t, name)
	c := ctx(t, 15*time.Minute)
	doc := drillDoc(t, name, "name: go, preset: go-nethttp", "ping", "  cleanup: {policy: Never}\n")
	spec := doc.Object["spec"].(map[string]any)
	spec["targets"] = []any{map[string]any{"name": "go", "preset": "go-nethttp", "resources": map[string]any{"cpu": "200m", "memory": "128Mi"}}}
	spec["loadGenerator"] = map[string]any{"parallelism": int64(3), "resources": map[string]any{"cpu": "100m", "memory": "256Mi"}}
	load := spec["load"].(map[string]any)
	load["rates"], load["duration"], load["maxVUs"] = []any{int64(300)}, "30s", int64(60)
	l.keepApplied(t, doc)
	if _, err := l.dyn.Resource(runGVR).Namespace(ns).Create(c, doc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BenchmarkRun: %v", err)
	}
	run, err := l.waitFinished(c, ns, name, 3*time.Second, 12*time.Minute)
	if err != nil || run.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %v (%v), want Succeeded:\n%s", run, err, func() string {
			if run == nil {
				return ""
			}
			return conditions(run.Status.Conditions)
		}())
	}
	var trial *benchv1.Trial
	for i := range run.Status.Trials {
		if tr := &run.Status.Trials[i]; !tr.Calibration && tr.Phase == benchv1.TrialSucceeded && tr.Result != nil {
			trial = tr
		}
	}
	if trial == nil {
		t.Fatalf("no measured trial: %+v", run.Status.Trials)
	}
	if n := sizedRunners(run); n != 3 {
		t.Errorf("the operator sized %d runners, want 3 (status.loadGeneratorSizing)", n)
	}
	pods, err := l.client.CoreV1().Pods(ns).List(c, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sums []runnerSummary
	for _, p := range pods.Items {
		if !isRunnerPod(trial.TestRun, p) {
			continue
		}
		log, err := l.client.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(c)
		if err != nil {
			t.Fatalf("log of %s: %v", p.Name, err)
		}
		s, err := parseSummary(p.Name, string(log))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	if len(sums) != 3 {
		t.Fatalf("runner pods of %s: %d summaries, want 3", trial.TestRun, len(sums))
	}
	m := trial.Result
	var total int64
	lo50, hi50, lo99, hi99 := sums[0].p50, sums[0].p50, sums[0].p99, sums[0].p99
	for _, s := range sums {
		total += s.requests
		lo50, hi50, lo99, hi99 = min(lo50, s.p50), max(hi50, s.p50), min(lo99, s.p99), max(hi99, s.p99)
		t.Logf("runner %s: %d measured requests, p50 %s, p99 %s", s.pod, s.requests, s.p50, s.p99)
		if s.requests*100 < m.Requests*20 || s.requests*100 > m.Requests*47 {
			t.Errorf("runner %s made %d of %d requests: the rate is not split three ways", s.pod, s.requests, m.Requests)
		}
	}
	t.Logf("merged in Prometheus: %d requests, p50 %dµs, p99 %dµs; wire: %+v", m.Requests, m.P50Micros, m.P99Micros, m.Wire)
	if total != m.Requests {
		t.Errorf("the runners' summaries count %d measured requests, Prometheus %d", total, m.Requests)
	}
	if m.Wire == nil || !results.WireComplete(*m) {
		t.Errorf("wire %+v: want the same %d requests on the target's wire", m.Wire, m.Requests)
	}
	within := func(what string, got int64, lo, hi time.Duration) {
		l, h := float64(lo.Microseconds())/metrics.BucketRatio, float64(hi.Microseconds())*metrics.BucketRatio
		if float64(got) < l-1 || float64(got) > h+1 {
			t.Errorf("merged %s %dµs lies outside the runners' own [%s, %s], widened by one bucket", what, got, lo, hi)
		}
	}
	within("p50", m.P50Micros, lo50, hi50)
	within("p99", m.P99Micros, lo99, hi99)
}

// sizedRunners is the runners status.loadGeneratorSizing gives the run's load point.
func sizedRunners(run *benchv1.BenchmarkRun) int32 {
	for _, s := range run.Status.LoadGeneratorSizing {
		return s.Runners
	}
	return 0
}

// isRunnerPod: a runner pod of the TestRun (k6-operator names them <testrun>-<n>-<suffix>;
// the initializer and starter carry their role in the name).
func isRunnerPod(testRun string, p corev1.Pod) bool {
	rest, ok := strings.CutPrefix(p.Name, testRun+"-")
	return ok && !strings.HasPrefix(rest, "initializer") && !strings.HasPrefix(rest, "starter")
}
