package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func testRun() (*benchv1.BenchmarkRun, *benchv1.Trial) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Load: benchv1.Load{
		Warmup: "10s", Duration: "30s"}}}
	run.Status.Trials = []benchv1.Trial{{Name: "go-ping-100-r1", Target: "go", Scenario: "ping", LoadPoint: 100, Phase: benchv1.TrialRunning}}
	return run, &run.Status.Trials[0]
}

var d = Deadlines{Start: time.Minute, Finish: 2 * time.Minute, Unschedulable: 3 * time.Minute, Grace: 15 * time.Second,
	Measure: time.Minute, Poll: 5 * time.Second}

// A trial's life through the engine: dated from the load's start, waited on, read Grace
// after its window, recorded.
func TestStepDatesWaitsAndReads(t *testing.T) {
	run, tr := testRun()
	o := Observation{Subject: "TestRun x", Created: t0}
	if n := Step(run, tr, o, t0.Add(time.Second), d, nil); n.After != d.Poll || tr.MeasureStart != nil {
		t.Fatalf("not started: %+v, window %v", n, tr.MeasureStart)
	}
	o.Started = t0.Add(2 * time.Second)
	Step(run, tr, o, t0.Add(3*time.Second), d, nil)
	if !tr.MeasureStart.Time.Equal(t0.Add(12*time.Second)) || !tr.MeasureEnd.Time.Equal(t0.Add(42*time.Second)) {
		t.Fatalf("window %v-%v, want the warmup after the start and 30 s", tr.MeasureStart, tr.MeasureEnd)
	}
	o.Started = t0.Add(time.Hour) // a later observation never moves the window
	o.Exited = true
	n := Step(run, tr, o, t0.Add(45*time.Second), d, nil)
	if n.Read || n.After != 12*time.Second || !tr.MeasureStart.Time.Equal(t0.Add(12*time.Second)) {
		t.Fatalf("exited at 45 s: %+v, want to wait until 15 s after the window's end", n)
	}
	if n := Step(run, tr, o, t0.Add(57*time.Second), d, nil); !n.Read {
		t.Fatalf("due: %+v", n)
	}
	m := benchv1.Measurement{Requests: 3000, P99Micros: 900}
	if n := Record(run, tr, m, []string{"", "wire: complete", ""}, nil); n.Stop != nil || tr.Phase != benchv1.TrialSucceeded ||
		tr.Message != "wire: complete" || tr.Result.Requests != 3000 || run.Status.Progress != "1/1" {
		t.Fatalf("recorded: %+v %+v", n, tr)
	}
}

// Every wait has a deadline, each with its reason; a failure the executor saw stops the
// run; a calibration trial's failure does not.
func TestStepDeadlinesAndFailures(t *testing.T) {
	started := Observation{Subject: "TestRun x", Created: t0, Started: t0}
	cases := []struct {
		name   string
		o      Observation
		now    time.Time
		reason string
		says   string
	}{
		{"never started", Observation{Subject: "TestRun x", Created: t0, Detail: `stage "created"`}, t0.Add(61 * time.Second),
			benchv1.ReasonTrialTimeout, `TestRun x did not start its runners within 1m0s of its creation (stage "created")`},
		{"never finished", started, t0.Add(40*time.Second + 121*time.Second), benchv1.ReasonTrialTimeout, "did not finish within 2m0s of its measured window's end"},
		{"unschedulable", Observation{Subject: "TestRun x", Created: t0, Held: "TestRun x's runner pod r-1", HeldWhy: "0/1 nodes: Insufficient cpu",
			HeldSince: t0}, t0.Add(181 * time.Second), benchv1.ReasonLoadUnschedulable, "TestRun x's runner pod r-1 could not be scheduled within 3m0s: 0/1 nodes: Insufficient cpu"},
		{"exited unseen", Observation{Subject: "k6", Created: t0, Exited: true}, t0, benchv1.ReasonTrialFailed, "k6 finished but was never seen started"},
		{"target died", Observation{Failure: &Failure{benchv1.ReasonTargetDrift, "Deployment go was scaled to 0"}}, t0,
			benchv1.ReasonTargetDrift, "trial go-ping-100-r1 failed: Deployment go was scaled to 0"},
	}
	for _, c := range cases {
		run, tr := testRun()
		if c.o.Started.IsZero() {
			tr.MeasureStart = nil
		}
		n := Step(run, tr, c.o, c.now, d, nil)
		if n.Stop == nil || n.Stop.Reason != c.reason || !strings.Contains(n.Stop.Why, c.says) || tr.Phase != benchv1.TrialFailed {
			t.Errorf("%s: %+v (trial %s %q), want a stop with %s saying %q", c.name, n.Stop, tr.Phase, tr.Message, c.reason, c.says)
		}
		run, tr = testRun()
		tr.Calibration = true
		if n := Step(run, tr, c.o, c.now, d, nil); n.Stop != nil || !strings.HasPrefix(tr.Message, "generator floor not measured: ") {
			t.Errorf("%s, calibration: %+v %q: the run goes on without its floor", c.name, n, tr.Message)
		}
	}
}

// A generator waiting to be placed is said once per change, in the trial and in Complete,
// and forgotten once placed.
func TestHeldIsSaidOnce(t *testing.T) {
	run, tr := testRun()
	var said []string
	notify := func(_ bool, reason, _, msg string) { said = append(said, reason+": "+msg) }
	o := Observation{Subject: "TestRun x", Created: t0, Held: "TestRun x's starter pod s", HeldWhy: "Insufficient cpu", HeldSince: t0}
	for i := range 3 {
		if n := Step(run, tr, o, t0.Add(time.Duration(i)*time.Second), d, notify); n.Stop != nil {
			t.Fatal(n.Stop)
		}
	}
	if len(said) != 1 || tr.Message != "waiting for TestRun x's starter pod s: Insufficient cpu" ||
		!strings.Contains(run.Status.Conditions[0].Message, "waiting for TestRun x's starter pod s") {
		t.Fatalf("said %v, trial %q, conditions %+v", said, tr.Message, run.Status.Conditions)
	}
	o.Held = ""
	Step(run, tr, o, t0.Add(4*time.Second), d, notify)
	if tr.Message != "" {
		t.Errorf("placed since, yet the trial says %q", tr.Message)
	}
}

// A failing read is retried until Measure past the time the figures were due.
func TestReadFailedRetriesThenFails(t *testing.T) {
	run, tr := testRun()
	end := metav1.NewTime(t0)
	tr.MeasureStart, tr.MeasureEnd, tr.FinishedAt = &end, &end, &end
	boom := errors.New("connection refused")
	if n, err := ReadFailed(run, tr, boom, t0.Add(time.Minute), d, nil); err == nil || n.Stop != nil || tr.Phase != benchv1.TrialRunning {
		t.Fatalf("within the deadline: %+v %v", n, err)
	}
	if n, err := ReadFailed(run, tr, boom, t0.Add(76*time.Second), d, nil); err != nil || n.Stop == nil || !strings.Contains(n.Stop.Why, "connection refused") {
		t.Fatalf("past it: %+v %v", n, err)
	}
}

// Figures that k6 counted beyond what the wire carried fail the trial, in both modes.
func TestRecordRefusesSeriesBeyondWire(t *testing.T) {
	run, tr := testRun()
	m := benchv1.Measurement{Requests: 5000, Wire: &benchv1.WireLatency{Requests: 3000}}
	if n := Record(run, tr, m, nil, nil); n.Stop == nil || n.Stop.Reason != benchv1.ReasonSeriesBeyondWire || tr.Result != nil {
		t.Fatalf("%+v, result %v", n.Stop, tr.Result)
	}
}

// An interrupted trial goes back to Pending with nothing of it kept.
func TestRequeue(t *testing.T) {
	_, tr := testRun()
	now := metav1.NewTime(t0)
	tr.MeasureStart, tr.FinishedAt = &now, &now
	Requeue(tr, "interrupted")
	if tr.Phase != benchv1.TrialPending || tr.MeasureStart != nil || tr.FinishedAt != nil || tr.Message != "interrupted" {
		t.Fatalf("%+v", tr)
	}
}
