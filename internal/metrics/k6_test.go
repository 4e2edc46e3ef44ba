package metrics

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

// newTarget is a small target on 127.0.0.1 with three kinds of answer: at once, after
// 2 ms of work (the contract's simulated hardware latency), and 404 where the plan
// expects 200 (so some requests fail).
func newTarget(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/work":
			time.Sleep(2 * time.Millisecond)
		case "/missing":
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// targetPlan is an open-model plan against the target: 60% /ping, 30% /work, 10% /missing.
func targetPlan(t *testing.T, baseURL, testID string, rate int, warmup, measure time.Duration) workload.Plan {
	t.Helper()
	p, err := workload.Build(workload.Spec{BaseURL: baseURL,
		Requests: []workload.Request{
			{Method: "GET", Path: "/ping", Weight: 6, ExpectStatus: 200},
			{Method: "GET", Path: "/work", Weight: 3, ExpectStatus: 200},
			{Method: "GET", Path: "/missing", Weight: 1, ExpectStatus: 200},
		},
		// Enough VUs ready that a stall of this shared machine needs no new one.
		Load:      workload.Load{Model: workload.Open, Rate: rate, PreAllocatedVUs: 100},
		KeepAlive: true, Warmup: warmup, Measure: measure,
		Tags: workload.Tags{TestID: testID, Target: "httptest", Scenario: "mix", LoadPoint: "1", Repetition: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var k6Once = sync.OnceValues(func() (string, error) {
	if out, err := exec.Command(filepath.Join(repoRoot, "hack", "k6.sh")).CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return k6.Binary(repoRoot)
})

// k6Process is one running k6, remote-writing to the test's Prometheus.
type k6Process struct {
	cmd     *exec.Cmd
	plan    workload.Plan
	summary string
	raw     string         // k6's JSON output of every sample, when asked for
	started chan time.Time // when bench.js's setup() logged that the load starts
	mu      sync.Mutex
	log     strings.Builder
	logDone chan struct{}
}

// startK6 runs the project's script and plan as internal/k6.Runner does, plus the
// Prometheus remote-write output with native histograms, pushing every second; with raw,
// also k6's JSON output of every sample.
func startK6(t *testing.T, p workload.Plan, runner string, raw bool) *k6Process {
	t.Helper()
	bin, err := k6Once()
	if err != nil {
		t.Fatalf("k6: %v", err)
	}
	dir := t.TempDir()
	script, planFile := filepath.Join(dir, loadgen.ScriptName), filepath.Join(dir, k6.PlanFile)
	planJSON, _ := json.Marshal(p)
	if err := os.WriteFile(planFile, planJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, loadgen.Script, 0o644); err != nil {
		t.Fatal(err)
	}
	k := &k6Process{plan: p, summary: filepath.Join(dir, k6.SummaryFile), started: make(chan time.Time, 1), logDone: make(chan struct{})}
	outs := []string{"run", "--out", "experimental-prometheus-rw"}
	if raw {
		k.raw = filepath.Join(dir, "samples.json")
		outs = append(outs, "--out", "json="+k.raw)
	}
	args := append(outs, k6.Args(script, planFile, k.summary)[1:]...)
	k.cmd = exec.Command(bin, args...)
	k.cmd.Dir = dir
	// Only these K6_ variables: others in the environment would change the plan's options.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "K6_") {
			k.cmd.Env = append(k.cmd.Env, kv)
		}
	}
	k.cmd.Env = append(k.cmd.Env, "K6_PROMETHEUS_RW_SERVER_URL="+promURL+"/api/v1/write",
		"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true", "K6_PROMETHEUS_RW_PUSH_INTERVAL=1s",
		workload.RunnerEnv+"="+runner)
	stderr, err := k.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	// stdout holds only the end-of-test summary, read from the export instead.
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.cmd.Process.Kill() }) // a no-op once k6 has exited
	go k.watch(stderr)
	return k
}

// watch keeps k6's log and notes when the load starts (the CPU sampler in internal/k6
// uses the same marker).
func (k *k6Process) watch(stderr io.Reader) {
	defer close(k.logDone)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "gauntlet: load starts") {
			select {
			case k.started <- time.Now():
			default:
			}
		}
		k.mu.Lock()
		k.log.WriteString(line + "\n")
		k.mu.Unlock()
	}
}

// wait returns k6's exact summary of the measured window and the window's bounds.
func (k *k6Process) wait(t *testing.T) (res k6.Result, start, end time.Time) {
	t.Helper()
	<-k.logDone
	err := k.cmd.Wait()
	k.mu.Lock()
	log := k.log.String()
	k.mu.Unlock()
	if err != nil {
		t.Fatalf("k6: %v\n%s", err, log)
	}
	// A failed request (a timeout the plan provokes) is a warning of its own, not a lost push.
	for _, line := range strings.Split(log, "\n") {
		if (strings.Contains(line, "level=error") || strings.Contains(line, "level=warn")) && !strings.Contains(line, `msg="Request Failed"`) {
			t.Errorf("k6 complained (a push may be lost):\n%s", log)
			break
		}
	}
	var loadStart time.Time
	select {
	case loadStart = <-k.started:
	default:
		t.Fatalf("k6 never logged the start of the load:\n%s", log)
	}
	if res, err = k6.ParseSummary(k.summary, k.plan.Measure()); err != nil {
		t.Fatal(err)
	}
	start = loadStart.Add(k.plan.Warmup())
	return res, start, start.Add(k.plan.Measure())
}
