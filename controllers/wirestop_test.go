package controllers

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// agentLog is a fake agent's record: the addresses it was asked to capture, and those
// still running.
type agentLog struct {
	mu      sync.Mutex
	started map[string]int
	running map[string]bool
}

func (l *agentLog) capture(ep wire.Endpoint) (wireagent.Running, error) {
	ip := ep.Addr.String()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started[ip]++
	l.running[ip] = true
	return stopCapture(func() (wire.EndpointResult, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.running, ip)
		return wire.EndpointResult{}, nil
	}), nil
}

func (l *agentLog) state(ip string) (started int, running bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started[ip], l.running[ip]
}

type stopCapture func() (wire.EndpointResult, error)

func (f stopCapture) Stop() (wire.EndpointResult, error) { return f() }

// A capture takes one of a node's few slots, shared by every tenant. A trial that fails
// and a run deleted mid-trial stop theirs at once (not an hour later when they stop
// themselves), and a pod that carries a target's labels without being its Deployment's
// gets no capture.
func TestWireCapturesStopOnEveryExit(t *testing.T) {
	testenv.Long(t)
	const ns = "wire-stop"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	log := &agentLog{started: map[string]int{}, running: map[string]bool{}}
	agentPort, agentClient := wireAgent(t, ns, (&wireagent.Server{Auth: tokenIs("s3cret"), Capture: log.capture}).Handler())
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

	cases := []struct{ name, ip, stray string }{
		{"failed-trial", "10.2.0.1", "10.2.0.101"},
		{"deleted-run", "10.2.0.2", "10.2.0.102"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := pingRun("wire-stop-" + c.name)
			run.Namespace = ns
			run.Spec.Load.Duration = "60s" // the trial may only end early
			hold := make(chan struct{})
			t.Cleanup(func() { close(hold) })
			outcome := &k6Outcome{hold: hold}
			if c.name == "failed-trial" {
				outcome.oomKillAfter = 3 * time.Second
			}
			fakes.script(run.Name, outcome)
			fakes.mu.Lock()
			fakes.depPods[ns+"/"+specs.TargetName(run, "go")] = podPlace{"node-a", c.ip}
			fakes.mu.Unlock()
			// Another pod with the target's labels, on the same node: not the Deployment's.
			makePod(t, ns, "stray-"+c.name, "node-a", c.stray, map[string]string{
				specs.LabelName: specs.AppTarget, specs.LabelInstance: specs.TargetName(run, "go")})
			if err := env.Client.Create(ctx, run); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
			deadline := time.Now().Add(90 * time.Second)
			for n, _ := log.state(c.ip); n == 0; n, _ = log.state(c.ip) {
				if time.Now().After(deadline) {
					t.Fatalf("no capture of the target pod %s started", c.ip)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if c.name == "deleted-run" {
				if err := env.Client.Delete(ctx, run); err != nil {
					t.Fatal(err)
				}
			}
			// Well before the capture's own end (the trial's window and timeouts, minutes).
			for _, running := log.state(c.ip); running; _, running = log.state(c.ip) {
				if time.Now().After(deadline) {
					got := &benchv1.BenchmarkRun{}
					_ = env.Client.Get(ctx, client.ObjectKeyFromObject(run), got)
					t.Fatalf("the capture of %s still runs after the %s (trials %+v)", c.ip, c.name, got.Status.Trials)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if n, _ := log.state(c.stray); n != 0 {
				t.Errorf("the stray labelled pod %s got %d captures: want none", c.stray, n)
			}
		})
	}
}
