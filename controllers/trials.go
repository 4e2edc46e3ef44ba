package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// +kubebuilder:rbac:groups=k6.io,resources=testruns,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=list;deletecollection

// thresholdsExitCode is k6's exit code when a threshold was crossed.
const thresholdsExitCode = 99

// testRunRunning is the condition k6-operator sets True when the runners are started.
const testRunRunning = "TestRunRunning"

// trials runs one trial at a time, in plan order: a ConfigMap with the plan and script and
// a TestRun, then the TestRun's stages, the runners' exit codes and Prometheus. Each
// finished trial is recorded at once, so a restart never runs it again; a restart during a
// trial finds its TestRun by name and carries on.
func (r *BenchmarkRunReconciler) trials(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	engine.AdvanceSearch(run, s.notify) // a search appends its next step once the previous one is judged
	next := -1
	for i, t := range run.Status.Trials {
		if t.Phase == benchv1.TrialRunning || t.Phase == benchv1.TrialPending {
			next = i
			break
		}
	}
	if next < 0 {
		setPhase(run, benchv1.PhaseAnalyzing)
		return ctrl.Result{}, nil
	}
	setPhase(run, benchv1.PhaseRunning)
	setCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonTrialsRunning, "trials "+results.Progress(run.Status.Trials))
	if arms := engine.DuetArms(run, next); arms != nil {
		return r.duet(ctx, s, arms)
	}
	t := &run.Status.Trials[next]
	if t.Phase == benchv1.TrialPending {
		if res, wait, err := r.clearForLoad(ctx, s); wait || err != nil {
			return res, err
		}
		return r.startTrial(ctx, s, t)
	}
	return r.followTrial(ctx, s, t)
}

// clearForLoad readies the next load: a failed trial's TestRun may still be loading (no two
// trials' loads overlap, a duet's arms aside), and the null responder goes once calibration
// is over. wait is true while the old load stops; the result says when to look again.
func (r *BenchmarkRunReconciler) clearForLoad(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	run := s.run
	stopping, err := r.pruneTestRuns(ctx, run)
	if err != nil || len(stopping) > 0 {
		setCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, benchv1.ReasonTrialsRunning,
			fmt.Sprintf("trials %s; waiting for TestRun %s of a failed trial to stop", results.Progress(run.Status.Trials), strings.Join(stopping, ", ")))
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, true, err
	}
	return ctrl.Result{}, false, r.removeNullResponder(ctx, s)
}

// duet starts or follows the arms of a same-run pair together (spec.load.pairing Duet):
// a TestRun each, created in the same pass, so their loads overlap; each arm is then
// stepped and recorded as a trial of its own, and the next trial waits for them all.
func (r *BenchmarkRunReconciler) duet(ctx context.Context, s *scope, arms []int) (ctrl.Result, error) {
	run := s.run
	if run.Status.Trials[arms[0]].Phase == benchv1.TrialPending {
		if res, wait, err := r.clearForLoad(ctx, s); wait || err != nil {
			return res, err
		}
	}
	var out ctrl.Result
	for _, i := range arms {
		t := &run.Status.Trials[i]
		var res ctrl.Result
		var err error
		switch t.Phase {
		case benchv1.TrialPending:
			res, err = r.startTrial(ctx, s, t)
		case benchv1.TrialRunning:
			res, err = r.followTrial(ctx, s, t)
		default:
			continue
		}
		if err != nil || run.Status.Phase == benchv1.PhaseFailed {
			return res, err
		}
		if out.RequeueAfter == 0 || (res.RequeueAfter > 0 && res.RequeueAfter < out.RequeueAfter) {
			out = res
		}
	}
	return out, nil
}

func (r *BenchmarkRunReconciler) startTrial(ctx context.Context, s *scope, t *benchv1.Trial) (ctrl.Result, error) {
	run := s.run
	p, err := trialPlan(run, plan.FromStatus(t), r.trialBaseURL(run, t))
	if err != nil {
		return r.act(s, engine.FailTrial(run, t, engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: "no k6 plan: " + err.Error()}, s.notify), nil)
	}
	tr := specs.TestRun(run, plan.FromStatus(t), p, r.Config)
	if err := r.createAll(ctx, s, specs.PlanConfigMap(run, plan.FromStatus(t), p), tr); err != nil {
		if res, ferr := r.createFailed(s, benchv1.ConditionComplete, err); ferr == nil {
			t.Phase, t.Message = benchv1.TrialFailed, err.Error()
			return res, nil
		}
		return ctrl.Result{}, err
	}
	engine.Begin(t, tr.GetName(), s.notify)
	r.startWire(ctx, run, t)
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
}

// followTrial is the cluster's executor of a trial for the engine: it observes the
// TestRun, its pods and the target, lets the engine step the trial, and reads Prometheus
// and the wire when the engine says the figures are due.
func (r *BenchmarkRunReconciler) followTrial(ctx context.Context, s *scope, t *benchv1.Trial) (ctrl.Result, error) {
	o, pods, err := r.observeTrial(ctx, s, t)
	if err != nil {
		return ctrl.Result{}, err
	}
	next := engine.Step(s.run, t, o, s.now, r.deadlines(), s.notify)
	if next.Read {
		next, err = r.readTrial(ctx, s, t, pods)
	}
	if t.Phase == benchv1.TrialFailed || next.Stop != nil {
		r.stopWire(ctx, s.run, t) // never read: free the nodes' capture slots now
	}
	return r.act(s, next, err)
}

// observeTrial is what k6-operator, the runner pods and the target say of a running trial.
// A changed target or database fails it; the load is read by observeLoad.
func (r *BenchmarkRunReconciler) observeTrial(ctx context.Context, s *scope, t *benchv1.Trial) (engine.Observation, []corev1.Pod, error) {
	run := s.run
	o := engine.Observation{Subject: "TestRun " + t.TestRun}
	failed := func(reason, why string) (engine.Observation, []corev1.Pod, error) {
		o.Failure = &engine.Failure{Reason: reason, Why: why}
		return o, nil, nil
	}
	if drift, err := r.targetDrift(ctx, run, t); err != nil || drift != "" {
		if err != nil {
			return o, nil, err
		}
		return failed(benchv1.ReasonTargetDrift, drift)
	}
	tr := &unstructured.Unstructured{}
	tr.SetGroupVersionKind(specs.TestRunGVK)
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: t.TestRun}, tr); err != nil {
		if apierrors.IsNotFound(err) {
			return failed(benchv1.ReasonTrialFailed, fmt.Sprintf("TestRun %s was deleted before it finished", t.TestRun))
		}
		return o, nil, err
	}
	o.Created = tr.GetCreationTimestamp().Time
	if !t.Calibration && t.FinishedAt == nil {
		if drift, err := r.databaseDrift(ctx, run, o.Created); err != nil || drift != "" {
			if err != nil {
				return o, nil, err
			}
			return failed(benchv1.ReasonDatabaseDrift, drift)
		}
	}
	st, err := specs.ReadTestRunStatus(tr)
	if err != nil {
		return o, nil, err
	}
	pods, err := r.loadPods(ctx, run, t.TestRun)
	if err != nil {
		return o, nil, err
	}
	observeLoad(&o, t, st, int(trialRunners(run, t).Runners), pods, s.now)
	return o, pods, nil
}

// observeLoad reads the load's start, end and failures from k6-operator's stage and the
// runner pods. The load starts when k6-operator starts the runners: its TestRunRunning
// condition says when; without it, only a TestRun seen in the started stage dates the start
// (a later stage would date it too late). A runner that died, or a pod the scheduler will
// not place, is reported at once: k6-operator would leave the TestRun waiting for it.
func observeLoad(o *engine.Observation, t *benchv1.Trial, st specs.TestRunStatus, want int, pods []corev1.Pod, now time.Time) {
	if st.Stage == specs.StageStarted || st.Stage == specs.StageStopped || st.Stage == specs.StageFinished {
		if c := findCondition(st.Conditions, testRunRunning); c != nil && c.Status == metav1.ConditionTrue {
			o.Started = c.LastTransitionTime.Time
		} else if st.Stage == specs.StageStarted {
			o.Started = now
		}
	}
	o.Detail = fmt.Sprintf("stage %q%s%s", st.Stage, conditionText(st.Conditions), podsState(t.TestRun, want, pods))
	failed := func(why string) { o.Failure = &engine.Failure{Reason: benchv1.ReasonTrialFailed, Why: why} }
	switch {
	case st.Stage == specs.StageError:
		failed(fmt.Sprintf("k6-operator reported an error for TestRun %s%s", t.TestRun, conditionText(st.Conditions)))
	case st.Stage != specs.StageFinished:
		if why := runnersFailed(t.TestRun, st.Stage, want, pods); why != "" {
			failed(why)
		} else if who, why, since := stuckPod(t.TestRun, pods); who != "" {
			o.Held, o.HeldWhy, o.HeldSince = fmt.Sprintf("TestRun %s's %s", t.TestRun, who), why, since
		}
	default:
		msg, done := runnerExitCodes(t.TestRun, want, pods)
		if msg != "" {
			failed(msg)
		}
		o.Exited = done
	}
}

// readTrial reads a finished trial's figures from Prometheus and the wire agents, and
// gives them to the engine. A tight budget per pass: a slow Prometheus delays this trial,
// not the other runs.
func (r *BenchmarkRunReconciler) readTrial(ctx context.Context, s *scope, t *benchv1.Trial, pods []corev1.Pod) (engine.Next, error) {
	run := s.run
	mctx, cancel := context.WithTimeout(ctx, r.Timeouts.MeasureCall)
	defer cancel()
	m, note, err := r.Metrics.Measure(mctx, trialQuery(run, t), engine.ReadAt(t, r.deadlines()))
	if err != nil {
		return engine.ReadFailed(run, t, fmt.Errorf("from Prometheus: %w", err), s.now, r.deadlines(), s.notify)
	}
	next := engine.Record(run, t, m, []string{r.recordWire(mctx, run, t, &m), r.sharedNodes(mctx, run, t, pods, &m), note}, s.notify)
	if next.Stop == nil {
		// Its figures are in status: TestRuns older than the last few go, with their pods.
		_, err = r.pruneTestRuns(ctx, run)
	}
	return next, err
}

// act carries out what the engine decided: the run fails, or the trial is looked at again
// after a while, or the next trial starts soon.
func (r *BenchmarkRunReconciler) act(s *scope, next engine.Next, err error) (ctrl.Result, error) {
	switch {
	case err != nil:
		return ctrl.Result{}, err
	case next.Stop != nil:
		return r.fail(s, benchv1.ConditionComplete, next.Stop.Reason, next.Stop.Why)
	case next.After > 0:
		return ctrl.Result{RequeueAfter: next.After}, nil
	}
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll / 10}, nil
}

// deadlines are the operator's timeouts as the engine's.
func (r *BenchmarkRunReconciler) deadlines() engine.Deadlines {
	return engine.Deadlines{Start: r.Timeouts.TrialStart, Finish: r.Timeouts.TrialFinish, Unschedulable: r.Timeouts.Unschedulable,
		Grace: r.Timeouts.Grace, Measure: r.Timeouts.Measure, Poll: r.Timeouts.Poll}
}

// runnerExitCodes reads the runner pods' exit codes (k6-operator reports them only in its
// cloud mode). done is false until every runner has terminated; msg explains a failure.
func runnerExitCodes(testRun string, want int, pods []corev1.Pod) (msg string, done bool) {
	var failures []string
	terminated := 0
	for i := range pods {
		p := &pods[i]
		if k6PodRole(testRun, p) != roleRunner || !podDone(p) {
			continue
		}
		terminated++
		if why := runnerFailure(p); why != "" {
			failures = append(failures, why)
		}
	}
	if terminated < want {
		return "", false
	}
	return strings.Join(failures, "; "), true
}

// podDone: the pod has failed or succeeded, or every container of it has terminated.
func podDone(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Terminated == nil {
			return false
		}
	}
	return len(p.Status.ContainerStatuses) > 0
}

func targetSpec(run *benchv1.BenchmarkRun, name string) benchv1.Target {
	for _, t := range run.Spec.Targets {
		if t.Name == name {
			return t
		}
	}
	return benchv1.Target{Name: name}
}

func findCondition(cs []metav1.Condition, t string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

func conditionText(cs []metav1.Condition) string {
	var parts []string
	for _, c := range cs {
		if c.Message != "" {
			parts = append(parts, c.Type+": "+c.Message)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
