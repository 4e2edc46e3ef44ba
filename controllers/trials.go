package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
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
	r.advanceSearch(s) // a search appends its next step once the previous one is judged
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
	setCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, ReasonTrialsRunning, "trials "+results.Progress(run.Status.Trials))
	t := &run.Status.Trials[next]
	if t.Phase == benchv1.TrialPending {
		// A failed trial's TestRun may still be loading: no two trials' load overlaps.
		stopping, err := r.pruneTestRuns(ctx, run)
		if err != nil || len(stopping) > 0 {
			setCondition(run, benchv1.ConditionComplete, metav1.ConditionFalse, ReasonTrialsRunning,
				fmt.Sprintf("trials %s; waiting for TestRun %s of a failed trial to stop", results.Progress(run.Status.Trials), strings.Join(stopping, ", ")))
			return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, err
		}
		if err := r.removeNullResponder(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		return r.startTrial(ctx, s, t)
	}
	return r.followTrial(ctx, s, t)
}

func (r *BenchmarkRunReconciler) startTrial(ctx context.Context, s *scope, t *benchv1.Trial) (ctrl.Result, error) {
	run := s.run
	p, err := trialPlan(run, plan.FromStatus(t), r.trialBaseURL(run, t))
	if err != nil {
		return r.failTrial(s, t, "no k6 plan: "+err.Error())
	}
	tr := specs.TestRun(run, plan.FromStatus(t), p, r.Config)
	if err := r.createAll(ctx, s, specs.PlanConfigMap(run, plan.FromStatus(t), p), tr); err != nil {
		if res, ferr := r.createFailed(s, benchv1.ConditionComplete, err); ferr == nil {
			t.Phase, t.Message = benchv1.TrialFailed, err.Error()
			return res, nil
		}
		return ctrl.Result{}, err
	}
	t.Phase, t.TestRun = benchv1.TrialRunning, tr.GetName()
	r.startWire(ctx, run, t)
	r.Recorder.Eventf(run, nil, "Normal", ReasonTrialStarted, "Load", "trial %s started (TestRun %s)", t.Name, t.TestRun)
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
}

// followTrial moves a running trial on from what k6-operator and Prometheus report. Every
// wait has a deadline: the runners must start within TrialStart of the TestRun's creation,
// and the TestRun must finish with every runner's exit code within TrialFinish of the
// measured window's end. The target must stay as deployed throughout.
func (r *BenchmarkRunReconciler) followTrial(ctx context.Context, s *scope, t *benchv1.Trial) (ctrl.Result, error) {
	run := s.run
	if drift, err := r.targetDrift(ctx, run, t); err != nil || drift != "" {
		if drift != "" {
			return r.failTrialFor(s, t, ReasonTargetDrift, drift)
		}
		return ctrl.Result{}, err
	}
	tr := &unstructured.Unstructured{}
	tr.SetGroupVersionKind(specs.TestRunGVK)
	if err := r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: t.TestRun}, tr); err != nil {
		if apierrors.IsNotFound(err) {
			return r.failTrial(s, t, fmt.Sprintf("TestRun %s was deleted before it finished", t.TestRun))
		}
		return ctrl.Result{}, err
	}
	if !t.Calibration && t.FinishedAt == nil {
		if drift, err := r.databaseDrift(ctx, run, tr.GetCreationTimestamp().Time); err != nil || drift != "" {
			if drift != "" {
				return r.failTrialFor(s, t, ReasonDatabaseDrift, drift)
			}
			return ctrl.Result{}, err
		}
	}
	st, err := specs.ReadTestRunStatus(tr)
	if err != nil {
		return ctrl.Result{}, err
	}
	if t.MeasureStart == nil && (st.Stage == specs.StageStarted || st.Stage == specs.StageStopped || st.Stage == specs.StageFinished) {
		// The load starts when k6-operator starts the runners; the window follows the warmup.
		// Its TestRunRunning condition says when; without it, only a TestRun seen in the
		// started stage itself dates the start (a later stage would date it too late).
		var started time.Time
		if c := findCondition(st.Conditions, testRunRunning); c != nil && c.Status == metav1.ConditionTrue {
			started = c.LastTransitionTime.Time
		} else if st.Stage == specs.StageStarted {
			started = s.now
		}
		if !started.IsZero() {
			warmup, measure := plan.Windows(&run.Spec, plan.FromStatus(t))
			start := started.Add(warmup)
			t.MeasureStart, t.MeasureEnd = &metav1.Time{Time: start}, &metav1.Time{Time: start.Add(measure)}
		}
	}
	pods, err := r.loadPods(ctx, run, t.TestRun)
	if err != nil {
		return ctrl.Result{}, err
	}
	want := int(trialRunners(run, t).Runners)
	// late says what the trial waits for once it is past its deadline, "" before.
	late := func() string {
		what := podsState(t.TestRun, want, pods)
		if t.MeasureStart == nil {
			if overdue(s.now, tr.GetCreationTimestamp().Time, r.Timeouts.TrialStart) {
				return fmt.Sprintf("TestRun %s did not start its runners within %v of its creation (stage %q%s%s)",
					t.TestRun, r.Timeouts.TrialStart, st.Stage, conditionText(st.Conditions), what)
			}
			return ""
		}
		if overdue(s.now, t.MeasureEnd.Time, r.Timeouts.TrialFinish) {
			return fmt.Sprintf("TestRun %s did not finish within %v of its measured window's end (stage %q%s)",
				t.TestRun, r.Timeouts.TrialFinish, st.Stage, what)
		}
		return ""
	}
	switch {
	case st.Stage == specs.StageError:
		return r.failTrial(s, t, fmt.Sprintf("k6-operator reported an error for TestRun %s%s", t.TestRun, conditionText(st.Conditions)))
	case st.Stage != specs.StageFinished:
		// A runner that died, or a pod the scheduler will not place, ends the trial now:
		// k6-operator would leave the TestRun waiting for it.
		if why := runnersFailed(t.TestRun, st.Stage, want, pods); why != "" {
			return r.failTrial(s, t, why)
		}
		if res, failed, err := r.heldUp(s, t, pods); failed {
			return res, err
		}
		if why := late(); why != "" {
			return r.failTrialFor(s, t, ReasonTrialTimeout, why)
		}
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	}
	if msg, done := runnerExitCodes(t.TestRun, want, pods); !done {
		if why := late(); why != "" {
			return r.failTrialFor(s, t, ReasonTrialTimeout, why)
		}
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll}, nil
	} else if msg != "" {
		return r.failTrial(s, t, msg)
	}
	if t.MeasureStart == nil {
		return r.failTrial(s, t, "TestRun "+t.TestRun+" finished but was never seen started: the measured window is unknown")
	}
	if t.FinishedAt == nil {
		t.FinishedAt = &metav1.Time{Time: s.now}
	}
	readAt := t.MeasureEnd.Add(r.Timeouts.Grace)
	if t.FinishedAt.After(readAt) {
		readAt = t.FinishedAt.Time
	}
	if wait := readAt.Sub(s.now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	// A tight budget per pass: a slow Prometheus delays this trial, not the other runs.
	mctx, cancel := context.WithTimeout(ctx, r.Timeouts.MeasureCall)
	defer cancel()
	m, note, err := r.Metrics.Measure(mctx, trialQuery(run, t), readAt)
	if err != nil {
		if s.now.Sub(readAt) > r.Timeouts.Measure {
			return r.failTrial(s, t, "reading the trial's figures from Prometheus: "+err.Error())
		}
		return ctrl.Result{}, fmt.Errorf("trial %s: %w", t.Name, err)
	}
	// The wire's and the placement's notes first: the others may be clipped.
	notes := slices.DeleteFunc([]string{r.recordWire(mctx, run, t, &m), r.sharedNodes(mctx, run, t, pods, &m), note},
		func(s string) bool { return s == "" })
	note = strings.Join(notes, "; ")
	if why := results.SeriesBeyondWire(m); why != "" {
		return r.failTrialFor(s, t, ReasonSeriesBeyondWire, why)
	}
	t.Phase, t.Result, t.Message = benchv1.TrialSucceeded, &m, note
	if t.Calibration {
		t.Message = "generator floor: k6 against the null responder"
	}
	run.Status.Progress = results.Progress(run.Status.Trials)
	r.Recorder.Eventf(run, nil, "Normal", ReasonTrialFinished, "Measure", "trial %s: %d requests, p99 %s (%s)",
		t.Name, m.Requests, results.FormatMicros(m.P99Micros), run.Status.Progress)
	// Its figures are in status: TestRuns older than the last few go, with their pods.
	if _, err := r.pruneTestRuns(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.Timeouts.Poll / 10}, nil
}

// heldUp fails the trial once a pod of its TestRun has been unschedulable for longer than
// the Unschedulable deadline (failed is true then). Before that it names the pod, and the
// scheduler's words, in the trial's message and the run's Complete condition, with one
// event each time they change.
func (r *BenchmarkRunReconciler) heldUp(s *scope, t *benchv1.Trial, pods []corev1.Pod) (res ctrl.Result, failed bool, err error) {
	who, why, since := stuckPod(t.TestRun, pods)
	if who == "" {
		if strings.HasPrefix(t.Message, waitingPrefix) {
			t.Message = "" // scheduled since
		}
		return ctrl.Result{}, false, nil
	}
	if overdue(s.now, since, r.Timeouts.Unschedulable) {
		res, err := r.failTrialFor(s, t, ReasonLoadUnschedulable, fmt.Sprintf("TestRun %s's %s could not be scheduled within %v: %s",
			t.TestRun, who, r.Timeouts.Unschedulable, why))
		return res, true, err
	}
	note := fmt.Sprintf("%sTestRun %s's %s: %s", waitingPrefix, t.TestRun, who, why)
	if t.Message != note {
		t.Message = note
		r.Recorder.Eventf(s.run, nil, "Warning", ReasonLoadUnschedulable, "Load", "trial %s: %s", t.Name, note)
	}
	setCondition(s.run, benchv1.ConditionComplete, metav1.ConditionFalse, ReasonTrialsRunning,
		fmt.Sprintf("trials %s; %s", results.Progress(s.run.Status.Trials), note))
	return ctrl.Result{}, false, nil
}

// waitingPrefix begins a running trial's message while a pod of its TestRun cannot be
// scheduled.
const waitingPrefix = "waiting for "

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

// failTrial records a failed trial and fails the run with it: the other trials would meet
// the same broken load generator or target.
func (r *BenchmarkRunReconciler) failTrial(s *scope, t *benchv1.Trial, why string) (ctrl.Result, error) {
	return r.failTrialFor(s, t, ReasonTrialFailed, why)
}

// failTrialFor is failTrial with the reason of the Complete condition.
func (r *BenchmarkRunReconciler) failTrialFor(s *scope, t *benchv1.Trial, reason, why string) (ctrl.Result, error) {
	t.Phase, t.Message = benchv1.TrialFailed, why
	s.run.Status.Progress = results.Progress(s.run.Status.Trials)
	if t.Calibration {
		// A floor not measured leaves the rows unjudged for generator noise; the targets'
		// trials still run (as in the local mode), and a broken generator fails them there.
		t.Message = "generator floor not measured: " + why
		r.Recorder.Eventf(s.run, nil, "Warning", ReasonCalibrationFailed, "Load", "calibration trial %s failed: %s", t.Name, why)
		return ctrl.Result{RequeueAfter: r.Timeouts.Poll / 10}, nil
	}
	return r.fail(s, benchv1.ConditionComplete, reason, fmt.Sprintf("trial %s failed: %s", t.Name, why))
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
