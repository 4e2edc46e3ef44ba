package controllers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/hoststeal"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// cannedCapture is a capture the fake agent answers for a pod address: the k6 runner's
// own measured count (as a capture that saw every request), less short (packets the
// kernel dropped), with fixed latencies of 100 µs and one of 2 ms.
type cannedCapture struct {
	run   client.ObjectKey
	short int64
	// errors of the captured responses are 503s (the rest 200, the ping's expected status).
	errors int64
}

func (c cannedCapture) Stop() (wire.EndpointResult, error) {
	run := &benchv1.BenchmarkRun{}
	if err := env.Client.Get(context.Background(), c.run, run); err != nil || len(run.Status.Trials) == 0 {
		return wire.EndpointResult{}, err
	}
	k6, _ := fakes.summary(run.Status.Trials[0].TestRun)
	var h wire.Histogram
	n := k6.Requests - c.short
	for i := int64(0); i < n; i++ {
		v := int64(100_000)
		if i == 0 {
			v = 2_000_000
		}
		h.Record(v)
	}
	r := wire.EndpointResult{Interface: "veth-canned", Buckets: h.Buckets(), MaxNanos: h.Max()}
	r.Requests = n
	r.Statuses = map[int]int64{200: n - c.errors}
	if c.errors > 0 {
		r.Statuses[503] = c.errors
	}
	if c.short > 0 {
		r.Dropped = c.short // as the kernel counts what a capture missed
	}
	r.P50, r.P90, r.P95, r.P99, r.P999, r.Max = h.Summary()
	return r, nil
}

// The path from the node agents to status, through the agent's own handler with canned
// captures, served over TLS with the pair of the operator's Secret: the operator finds the
// agent on the target pod's node, starts a capture with the trial and reads it after. A complete capture makes the row's
// latency the wire's; a node without an agent, or a count short of k6's, leaves k6's
// figures the record and says why on the WireCapture condition and the trial.
func TestWireCaptureToStatus(t *testing.T) {
	testenv.Long(t)
	const ns = "wire-capture"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	// Which run a pod address belongs to, and how short its capture falls.
	var mu sync.Mutex
	byIP := map[string]cannedCapture{}
	// The node's two CPUs lose a fifth of their time to the hypervisor, whenever read.
	var clock hoststeal.Sample
	steal := func() (hoststeal.Sample, error) {
		mu.Lock()
		defer mu.Unlock()
		clock.CPUs, clock.Total, clock.Steal = []int{0, 1}, clock.Total+10, clock.Steal+2
		return clock, nil
	}
	agentPort, agentClient := wireAgent(t, ns, (&wireagent.Server{Auth: tokenIs("s3cret"), Steal: steal, Capture: func(ep wire.Endpoint) (wireagent.Running, error) {
		mu.Lock()
		defer mu.Unlock()
		return byIP[ep.Addr.String()], nil
	}}).Handler())
	agentLabels := map[string]string{"app.kubernetes.io/component": "wire-agent"}
	makePod(t, ns, "wire-agent-node-a", "node-a", "127.0.0.1", agentLabels)

	stop, err := startManager(env.Config, []string{ns}, func(r *BenchmarkRunReconciler) {
		r.Wire = &WireAgents{Namespace: ns, Selector: labels.SelectorFromSet(agentLabels), Port: agentPort,
			Client: agentClient}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })

	cases := []struct {
		name, node, ip string
		short          int64
		source         benchv1.LatencySource
		status         metav1.ConditionStatus
		reason, says   string
	}{
		{"complete", "node-a", "10.1.0.7", 0, benchv1.LatencyWire, metav1.ConditionTrue, ReasonWireComplete, "captured on the wire"},
		{"no-agent", "node-b", "10.1.0.8", 0, benchv1.LatencyGenerator, metav1.ConditionFalse, ReasonWireMissing, "no wire agent runs on node node-b"},
		{"short", "node-a", "10.1.0.9", 1, benchv1.LatencyGenerator, metav1.ConditionFalse, ReasonWireIncomplete, "wire capture incomplete"},
		// The runner placed on the target's node: the trial and the row say so.
		{"beside", "node-a", "10.1.0.11", 0, benchv1.LatencyWire, metav1.ConditionTrue, ReasonWireComplete, "captured on the wire"},
		// A writer that is not the trial's runner pushes 5,000 requests answered in 250 ms
		// under its testid while it measures: the capture is whole, so the run fails.
		{"forged", "node-a", "10.1.0.10", 0, "", metav1.ConditionTrue, ReasonWireComplete, "captured on the wire"},
		// The target answered 3 requests 503 on the wire; k6's series count no error.
		{"errors-hidden", "node-a", "10.1.0.12", 0, "", metav1.ConditionTrue, ReasonWireComplete, "captured on the wire"},
	}
	for _, c := range cases {
		run := pingRun("wire-" + c.name)
		run.Namespace = ns
		mu.Lock()
		byIP[c.ip] = cannedCapture{run: client.ObjectKeyFromObject(run), short: c.short}
		if c.name == "errors-hidden" {
			byIP[c.ip] = cannedCapture{run: client.ObjectKeyFromObject(run), errors: 3}
		}
		mu.Unlock()
		// The target's one pod runs on its node before its Deployment is available.
		fakes.mu.Lock()
		fakes.depPods[ns+"/"+specs.TargetName(run, "go")] = podPlace{c.node, c.ip}
		fakes.runnerNode = ""
		if c.name == "beside" {
			fakes.runnerNode = c.node
		}
		fakes.mu.Unlock()
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
		if c.name == "forged" || c.name == "errors-hidden" {
			if c.name == "forged" {
				forge(t, run)
			}
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
			checkForged(t, got)
			continue
		}
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 120*time.Second, finished)
		if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Results) != 1 {
			t.Fatalf("%s: phase %s, trials %+v, conditions %+v", c.name, got.Status.Phase, got.Status.Trials, got.Status.Conditions)
		}
		trial, row := got.Status.Trials[0], got.Status.Results[0]
		cond := findCondition(got.Status.Conditions, ConditionWireCapture)
		t.Logf("%s: row source %s, trial message %q, condition %+v", c.name, row.LatencySource, trial.Message, cond)
		if row.LatencySource != c.source || cond == nil || cond.Status != c.status || cond.Reason != c.reason || !strings.Contains(cond.Message, c.says) {
			t.Errorf("%s: latency source %s, condition %+v; want %s, %s %s saying %q", c.name, row.LatencySource, cond, c.source, c.status, c.reason, c.says)
		}
		m := trial.Result
		switch c.name {
		case "complete":
			if m.Wire == nil || m.Wire.Requests != m.Requests || m.Requests == 0 || row.Wire == nil ||
				row.Wire.P50Micros.Median != 100 || row.Wire.MaxMicros.Median != 2000 || strings.Contains(trial.Message, "wire capture") ||
				len(m.SharedNodes) != 0 {
				t.Errorf("complete: measurement %+v wire %+v, row wire %+v, message %q", m, m.Wire, row.Wire, trial.Message)
			}
			// The agent's steal reaches the trial, which says it; the row stays valid.
			if m.HostStealMillicores != 400 || m.HostCPUs != 2 || !strings.HasPrefix(trial.Message, "the hypervisor took 20.0% of the trial's 2 CPUs (steal)") ||
				!strings.Contains(row.Message, "the hypervisor took over 10% of the CPUs in repetition 1 (20.0%)") || !row.Valid {
				t.Errorf("complete: steal %dm over %d CPUs, trial message %q, row message %q, valid %v", m.HostStealMillicores, m.HostCPUs, trial.Message, row.Message, row.Valid)
			}
		case "beside":
			if !slices.Equal(m.SharedNodes, []string{"node-a"}) || !strings.Contains(trial.Message, "ran on node node-a beside target pod") ||
				!strings.Contains(row.Message, "k6 ran beside the target on node node-a in 1 of 1 repetitions") || !row.Valid {
				t.Errorf("beside: shared nodes %v, trial message %q, row message %q, valid %v", m.SharedNodes, trial.Message, row.Message, row.Valid)
			}
		case "no-agent":
			if m.Wire != nil || !strings.Contains(trial.Message, "node-b") {
				t.Errorf("no agent: wire %+v, trial message %q", m.Wire, trial.Message)
			}
		case "short":
			if m.Wire == nil || m.Wire.Requests != m.Requests-1 || m.Wire.DroppedPackets != 1 || !strings.Contains(row.Message, "wire capture incomplete") {
				t.Errorf("short: wire %+v of %d, row message %q", m.Wire, m.Requests, row.Message)
			}
		}
	}
}

// makePod creates a running pod on node with ip, as the kubelet would report it.
func makePod(t *testing.T, ns, name, node, ip string, podLabels map[string]string) {
	t.Helper()
	ctx := context.Background()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: podLabels},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c:1"}}}}
	if err := env.Client.Create(ctx, p); err != nil {
		t.Error(err)
		return
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip}
	if err := env.Client.Status().Update(ctx, p); err != nil {
		t.Error(err)
	}
}

// forge pushes, once the run's first trial measures, what a writer that is not its runner
// would: 5,000 requests answered in 250 ms under the trial's testid and runner "0".
func forge(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	measuring := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 90*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return len(r.Status.Trials) > 0 && r.Status.Trials[0].MeasureStart != nil
	})
	id := specs.TestID(measuring, measuring.Status.Trials[0].Name)
	// The runner's label, read as anyone who may query Prometheus can.
	var runner string
	for deadline := time.Now().Add(30 * time.Second); runner == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		runner = queryLabel(t, `k6_http_reqs_total{testid="`+id+`"}`, "runner")
	}
	if runner == "" {
		t.Fatalf("no k6 series of %s in Prometheus to copy a runner label from", id)
	}
	if err := testprom.Push(prom.URL, testprom.Forged(id, runner, time.Now(), 5000, 0.25)); err != nil {
		t.Fatal(err)
	}
}

// queryLabel is label's value on the first series the instant query returns ("" if none).
func queryLabel(t *testing.T, query, label string) string {
	t.Helper()
	resp, err := http.Get(prom.URL + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Data.Result) == 0 {
		return ""
	}
	return body.Data.Result[0].Metric[label]
}

// checkForged: the forged series changed no figure: the run is Failed naming the trial and
// the surplus, and no row or trial result carries them.
func checkForged(t *testing.T, got *benchv1.BenchmarkRun) {
	t.Helper()
	complete := findCondition(got.Status.Conditions, benchv1.ConditionComplete)
	trial := got.Status.Trials[0]
	if got.Status.Phase != benchv1.PhaseFailed || complete == nil || complete.Reason != benchv1.ReasonSeriesBeyondWire ||
		!strings.Contains(complete.Message, trial.Name) || !strings.Contains(trial.Message, "written by something other than the trial's runners") {
		t.Fatalf("forged: phase %s, Complete %+v, trial %s %q", got.Status.Phase, complete, trial.Phase, trial.Message)
	}
	measured := slices.ContainsFunc(got.Status.Results, func(r benchv1.ResultRow) bool { return r.Repetitions > 0 })
	if trial.Phase != benchv1.TrialFailed || trial.Result != nil || measured {
		t.Errorf("forged: trial %s with result %+v, rows %+v: the forged figures must not be recorded", trial.Phase, trial.Result, got.Status.Results)
	}
	t.Logf("forged: %s", trial.Message)
}
