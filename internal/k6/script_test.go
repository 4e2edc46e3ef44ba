package k6

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

// inspected is the part of `k6 inspect`'s output (the options k6 derived from
// loadgen/bench.js and a plan) that the script is responsible for.
type inspected struct {
	Scenarios map[string]struct {
		Executor        string            `json:"executor"`
		StartTime       string            `json:"startTime"`
		GracefulStop    string            `json:"gracefulStop"`
		Duration        string            `json:"duration"`
		Tags            map[string]string `json:"tags"`
		Rate            int               `json:"rate"`
		TimeUnit        string            `json:"timeUnit"`
		PreAllocatedVUs int               `json:"preAllocatedVUs"`
		MaxVUs          int               `json:"maxVUs"`
		VUs             int               `json:"vus"`
	} `json:"scenarios"`
	Thresholds            map[string][]string `json:"thresholds"`
	Tags                  map[string]string   `json:"tags"`
	NoConnectionReuse     bool                `json:"noConnectionReuse"`
	DiscardResponseBodies bool                `json:"discardResponseBodies"`
	MaxRedirects          *int                `json:"maxRedirects"`
	SystemTags            []string            `json:"systemTags"`
	SummaryTrendStats     []string            `json:"summaryTrendStats"`
}

// inspect runs `k6 inspect` on the embedded script with a plan and extra environment.
func inspect(t *testing.T, p *workload.Plan, env ...string) (inspected, string, error) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, loadgen.ScriptName)
	_ = os.WriteFile(script, loadgen.Script, 0o644)
	// k6 run passes the system environment to the script by default; inspect must be told.
	args := []string{"inspect", "--include-system-env-vars", script}
	if p != nil {
		data, _ := json.Marshal(p)
		plan := filepath.Join(dir, PlanFile)
		_ = os.WriteFile(plan, data, 0o644)
		args = []string{"inspect", "--include-system-env-vars", "--env", "PLAN=" + plan, script}
	}
	cmd := exec.Command(k6Binary(t), args...)
	cmd.Env = append(k6Env(os.Environ()), env...)
	out, err := cmd.CombinedOutput()
	var got inspected
	if err == nil {
		if jerr := json.Unmarshal(out, &got); jerr != nil {
			t.Fatalf("k6 inspect output: %v\n%s", jerr, out)
		}
	}
	return got, string(out), err
}

func TestScriptOptionsOpenModelWithWarmup(t *testing.T) {
	testenv.Long(t)
	home, _ := workload.Lookup("smart-home")
	p, err := workload.Build(workload.Spec{BaseURL: "http://127.0.0.1:9", Requests: home.Requests,
		Load: workload.Load{Model: workload.Open, Rate: 1000, PreAllocatedVUs: 40, MaxVUs: 400}, KeepAlive: true,
		Warmup: 30 * time.Second, Measure: 5 * time.Minute, RequestTimeout: 2 * time.Second,
		Tags: workload.Tags{TestID: "r-1", Target: "node", Scenario: "smart", LoadPoint: "1000", Repetition: "3"}})
	if err != nil {
		t.Fatal(err)
	}
	o, out, err := inspect(t, &p)
	if err != nil {
		t.Fatalf("k6 inspect: %v\n%s", err, out)
	}
	w, m := o.Scenarios["warmup"], o.Scenarios["measure"]
	if len(o.Scenarios) != 2 || w.Executor != "constant-arrival-rate" || m.Executor != "constant-arrival-rate" {
		t.Fatalf("scenarios %+v", o.Scenarios)
	}
	if w.StartTime != "0s" || w.Duration != "30s" || w.Tags["phase"] != "warmup" || w.GracefulStop != "0s" {
		t.Errorf("warmup %+v", w)
	}
	if m.StartTime != "30s" || m.Duration != "5m0s" || m.Tags["phase"] != "measure" || m.GracefulStop != "2s" {
		t.Errorf("measure %+v", m)
	}
	// Plan tags ride on each scenario as well: k6-operator's --tag arguments replace options.tags.
	if m.Tags["testid"] != "r-1" || m.Tags["target"] != "node" || w.Tags["repetition"] != "3" {
		t.Errorf("scenario tags %v / %v", w.Tags, m.Tags)
	}
	if m.Rate != 1000 || m.TimeUnit != "1s" || m.PreAllocatedVUs != 40 || m.MaxVUs != 400 || w.Rate != 1000 {
		t.Errorf("measure load %+v", m)
	}
	for _, th := range []string{"http_req_duration{phase:measure}", "http_reqs{phase:measure}",
		"http_req_failed{phase:measure}", "dropped_iterations{scenario:measure}"} {
		if len(o.Thresholds[th]) != 1 {
			t.Errorf("no threshold on %s: %v", th, o.Thresholds)
		}
	}
	want := map[string]string{"testid": "r-1", "target": "node", "bench_scenario": "smart", "load_point": "1000", "repetition": "3", "runner": "0"}
	for k, v := range want {
		if o.Tags[k] != v {
			t.Errorf("tag %s = %q, want %q", k, o.Tags[k], v)
		}
	}
	// k6 follows 10 redirects unless told otherwise; a runner follows none.
	if o.MaxRedirects == nil || *o.MaxRedirects != 0 {
		t.Errorf("maxRedirects %v, want 0", o.MaxRedirects)
	}
	if o.NoConnectionReuse || !o.DiscardResponseBodies {
		t.Errorf("noConnectionReuse %v, discardResponseBodies %v", o.NoConnectionReuse, o.DiscardResponseBodies)
	}
	// Exactly the system tags something reads: each costs k6 CPU on every sample.
	if got := strings.Join(o.SystemTags, ","); got != "scenario,expected_response" && got != "expected_response,scenario" {
		t.Errorf("systemTags %v: want only scenario and expected_response", o.SystemTags)
	}
	if _, ok := o.Thresholds["checks{phase:measure}"]; ok {
		t.Error("a threshold on checks: the script makes no check()")
	}
	if strings.Join(o.SummaryTrendStats, ",") != TrendStats {
		t.Errorf("summaryTrendStats %v, want %s", o.SummaryTrendStats, TrendStats)
	}
}

// A duet's plan: one warmup and one measured scenario at both arms' rates together (the
// script alternates the arms by iteration), and the measured thresholds per arm that the
// summary is read from (armMetrics).
func TestScriptOptionsDuet(t *testing.T) {
	testenv.Long(t)
	p := duetPlan(t, 200, 2*time.Second, "http://127.0.0.1:9", "http://127.0.0.1:10")
	o, out, err := inspect(t, &p)
	if err != nil {
		t.Fatalf("k6 inspect: %v\n%s", err, out)
	}
	w, m := o.Scenarios["warmup"], o.Scenarios["measure"]
	if len(o.Scenarios) != 2 || w.Rate != 400 || m.Rate != 400 || m.StartTime != "1s" || m.PreAllocatedVUs != 2*p.PreAllocatedVUs {
		t.Fatalf("scenarios %+v, want one warmup and one measure at both arms' 400/s", o.Scenarios)
	}
	for k := range 2 {
		ms := armMetrics(k, true)
		for _, th := range []string{ms.duration, ms.reqs, ms.failed, ms.dropped} {
			if len(o.Thresholds[th]) != 1 {
				t.Errorf("arm %d: no threshold on %s: %v", k, th, o.Thresholds)
			}
		}
	}
}

func TestScriptOptionsClosedModelNoWarmupRunnerFromEnv(t *testing.T) {
	testenv.Long(t)
	ping, _ := workload.Lookup("ping")
	p, _ := workload.Build(workload.Spec{BaseURL: "http://127.0.0.1:9", Requests: ping.Requests,
		Load: workload.Load{Model: workload.Closed, VUs: 64}, KeepAlive: false, Measure: 10 * time.Second,
		Tags: workload.Tags{TestID: "r-2", Target: "go", Scenario: "ping", LoadPoint: "64", Repetition: "1"}})
	o, out, err := inspect(t, &p, workload.RunnerEnv+"=runner-pod-2")
	if err != nil {
		t.Fatalf("k6 inspect: %v\n%s", err, out)
	}
	m, ok := o.Scenarios["measure"]
	if len(o.Scenarios) != 1 || !ok || m.Executor != "constant-vus" || m.VUs != 64 || m.StartTime != "0s" || m.Duration != "10s" {
		t.Errorf("scenarios %+v", o.Scenarios)
	}
	if !o.NoConnectionReuse {
		t.Error("keepAlive false must set noConnectionReuse")
	}
	if o.Tags["runner"] != "runner-pod-2" {
		t.Errorf("runner tag %q, want the %s value", o.Tags["runner"], workload.RunnerEnv)
	}
}

func TestScriptRejectsAMissingOrBrokenPlan(t *testing.T) {
	testenv.Long(t)
	if _, out, err := inspect(t, nil); err == nil || !strings.Contains(out, "PLAN: set it") {
		t.Errorf("no PLAN: err %v\n%s", err, out)
	}
	bad := workload.Plan{Model: "closed", MixTotal: 1}
	if _, out, err := inspect(t, &bad); err == nil || !strings.Contains(out, "plan.requests") {
		t.Errorf("plan without requests: err %v\n%s", err, out)
	}
}
