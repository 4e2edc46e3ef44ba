package engine

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// Deadlines bound a trial's waits; the operator's come from its flags, the local mode's
// own k6 ends by itself and reads its figures at once.
type Deadlines struct {
	// Start: the load must start within this of being asked for (0: no deadline).
	Start time.Duration
	// Finish: the generator must exit within this of the measured window's end (0: none).
	Finish time.Duration
	// Unschedulable: a generator that cannot be placed fails the trial after this.
	Unschedulable time.Duration
	// Grace: the figures are read this long after the window's end, so the last push is in.
	Grace time.Duration
	// Measure: a failing read is retried this long past Grace before the trial fails.
	Measure time.Duration
	// Poll: how soon to look again at a trial still going.
	Poll time.Duration
}

// Failure is a trial that the executor saw fail: the Complete condition's reason and why.
type Failure struct {
	Reason string
	Why    string
}

// Observation is what an executor saw of a running trial.
type Observation struct {
	// Subject names what drives the load in messages ("TestRun x", "k6").
	Subject string
	// Created is when the load was asked for; Started when it began (zero: not seen yet).
	Created, Started time.Time
	// Exited: every generator has exited, successfully (a failing exit is a Failure).
	Exited bool
	// Failure: the trial cannot go on (the target died, a runner failed, ...).
	Failure *Failure
	// Held names a generator that cannot be placed yet, HeldWhy says why (the
	// scheduler's words), HeldSince since when.
	Held, HeldWhy string
	HeldSince     time.Time
	// Detail says what the trial waits for, for a deadline's message.
	Detail string
}

// Next is what the executor does after a step.
type Next struct {
	// Read: read the trial's figures now and give them to Record (or ReadFailed).
	Read bool
	// After: look at the trial again after this; 0 with Read false: the trial has ended.
	After time.Duration
	// Stop: the run is over, Failed with this reason (a target's trial failed).
	Stop *Failure
}

// HeldPrefix begins a running trial's message while its generator cannot be placed.
const HeldPrefix = "waiting for "

// Begin marks a pending trial running, driven by testRun ("" in the local mode).
func Begin(t *benchv1.Trial, testRun string, notify Notify) {
	t.Phase, t.TestRun = benchv1.TrialRunning, testRun
	what := ""
	if testRun != "" {
		what = " (TestRun " + testRun + ")"
	}
	notify.say(false, benchv1.ReasonTrialStarted, "Load", fmt.Sprintf("trial %s started%s", t.Name, what))
}

// Step moves a running trial on from what its executor observed: a failure ends it; the
// measured window is dated from the load's start (after the warmup); every wait has a
// deadline (the load must start within Start of being asked for, the generator exit within
// Finish of the window's end, a generator be placed within Unschedulable); once the
// generator has exited, the figures are read Grace after the window's end.
func Step(run *benchv1.BenchmarkRun, t *benchv1.Trial, o Observation, now time.Time, d Deadlines, notify Notify) Next {
	if o.Failure != nil {
		return FailTrial(run, t, *o.Failure, notify)
	}
	if t.MeasureStart == nil && !o.Started.IsZero() {
		warmup, measure := plan.Windows(&run.Spec, plan.FromStatus(t))
		start := o.Started.Add(warmup)
		t.MeasureStart, t.MeasureEnd = &metav1.Time{Time: start}, &metav1.Time{Time: start.Add(measure)}
	}
	if !o.Exited {
		if f := held(run, t, o, now, d, notify); f != nil {
			return FailTrial(run, t, *f, notify)
		}
		if why := late(t, o, now, d); why != "" {
			return FailTrial(run, t, Failure{benchv1.ReasonTrialTimeout, why}, notify)
		}
		return Next{After: d.Poll}
	}
	if t.MeasureStart == nil {
		return FailTrial(run, t, Failure{benchv1.ReasonTrialFailed, o.Subject + " finished but was never seen started: the measured window is unknown"}, notify)
	}
	if t.FinishedAt == nil {
		t.FinishedAt = &metav1.Time{Time: now}
	}
	if wait := ReadAt(t, d).Sub(now); wait > 0 {
		return Next{After: wait}
	}
	return Next{Read: true}
}

// ReadAt is when a finished trial's figures are complete: Grace after the window's end,
// and not before the generator was seen finished.
func ReadAt(t *benchv1.Trial, d Deadlines) time.Time {
	at := t.MeasureEnd.Add(d.Grace)
	if t.FinishedAt.After(at) {
		at = t.FinishedAt.Time
	}
	return at
}

// late says why a trial past one of its deadlines fails, or "".
func late(t *benchv1.Trial, o Observation, now time.Time, d Deadlines) string {
	if t.MeasureStart == nil {
		if d.Start > 0 && !o.Created.IsZero() && now.Sub(o.Created) > d.Start {
			return fmt.Sprintf("%s did not start its runners within %v of its creation (%s)", o.Subject, d.Start, o.Detail)
		}
		return ""
	}
	if d.Finish > 0 && now.Sub(t.MeasureEnd.Time) > d.Finish {
		return fmt.Sprintf("%s did not finish within %v of its measured window's end (%s)", o.Subject, d.Finish, o.Detail)
	}
	return ""
}

// held fails the trial once its generator has been unplaceable for longer than
// Unschedulable. Before that it names what waits, and why, in the trial's message and the
// run's Complete condition, saying so each time it changes.
func held(run *benchv1.BenchmarkRun, t *benchv1.Trial, o Observation, now time.Time, d Deadlines, notify Notify) *Failure {
	if o.Held == "" {
		if strings.HasPrefix(t.Message, HeldPrefix) {
			t.Message = "" // placed since
		}
		return nil
	}
	if d.Unschedulable > 0 && now.Sub(o.HeldSince) > d.Unschedulable {
		return &Failure{benchv1.ReasonLoadUnschedulable, fmt.Sprintf("%s could not be scheduled within %v: %s", o.Held, d.Unschedulable, o.HeldWhy)}
	}
	note := HeldPrefix + o.Held + ": " + o.HeldWhy
	if t.Message != note {
		t.Message = note
		notify.say(true, benchv1.ReasonLoadUnschedulable, "Load", fmt.Sprintf("trial %s: %s", t.Name, note))
	}
	SetCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonTrialsRunning,
		fmt.Sprintf("trials %s; %s", results.Progress(run.Status.Trials), note))
	return nil
}

// FailTrial records a failed trial. A target's trial stops the run (Next.Stop): the other
// trials would meet the same broken generator or target. A calibration trial's failure
// leaves the rows unjudged for generator noise and the run goes on.
func FailTrial(run *benchv1.BenchmarkRun, t *benchv1.Trial, f Failure, notify Notify) Next {
	t.Phase, t.Message = benchv1.TrialFailed, f.Why
	run.Status.Progress = results.Progress(run.Status.Trials)
	if t.Calibration {
		t.Message = "generator floor not measured: " + f.Why
		notify.say(true, benchv1.ReasonCalibrationFailed, "Load", fmt.Sprintf("calibration trial %s failed: %s", t.Name, f.Why))
		return Next{}
	}
	return Next{Stop: &Failure{Reason: f.Reason, Why: fmt.Sprintf("trial %s failed: %s", t.Name, f.Why)}}
}

// ReadFailed is a read of a finished trial's figures that failed: retried until Measure
// past the time they were due, then the trial fails.
func ReadFailed(run *benchv1.BenchmarkRun, t *benchv1.Trial, err error, now time.Time, d Deadlines, notify Notify) (Next, error) {
	if now.Sub(ReadAt(t, d)) > d.Measure {
		return FailTrial(run, t, Failure{benchv1.ReasonTrialFailed, "reading the trial's figures: " + err.Error()}, notify), nil
	}
	return Next{}, fmt.Errorf("trial %s: %w", t.Name, err)
}

// Record puts a finished trial's figures into status: the trial Succeeded with notes (a
// duet's first, then the host's steal, then the wire's and the placement's: a long message
// is clipped at its end).
// Figures that k6 counted beyond what the target's wire carried were written by someone
// else, and fail the trial rather than enter a row.
func Record(run *benchv1.BenchmarkRun, t *benchv1.Trial, m benchv1.Measurement, notes []string, notify Notify) Next {
	if why := results.SeriesBeyondWire(m, plan.InFlight(&run.Spec, plan.FromStatus(t))); why != "" {
		return FailTrial(run, t, Failure{benchv1.ReasonSeriesBeyondWire, why}, notify)
	}
	// A duet's note comes first: the message is clipped, and which arms loaded together
	// must survive the longer notes after it.
	var kept []string
	for _, n := range append([]string{DuetNote(run, t), results.StolenNote(m)}, notes...) {
		if n != "" {
			kept = append(kept, n)
		}
	}
	t.Phase, t.Result, t.Message = benchv1.TrialSucceeded, &m, strings.Join(kept, "; ")
	if t.Calibration {
		t.Message = "generator floor: k6 against the null responder"
	}
	run.Status.Progress = results.Progress(run.Status.Trials)
	notify.say(false, benchv1.ReasonTrialFinished, "Measure", fmt.Sprintf("trial %s: %d requests, p99 %s (%s)",
		t.Name, m.Requests, results.FormatMicros(m.P99Micros), run.Status.Progress))
	return Next{}
}

// Requeue puts a trial interrupted before it finished back to Pending: nothing of it was
// measured, and a later run of the same status runs it again.
func Requeue(t *benchv1.Trial, why string) {
	t.Phase, t.Message, t.MeasureStart, t.MeasureEnd, t.FinishedAt = benchv1.TrialPending, why, nil, nil, nil
}
