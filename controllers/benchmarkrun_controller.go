// Package controllers holds the BenchmarkRun reconciler: a short pipeline of phase functions,
// one file per concern, with the status patched once at the end of each pass.
package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// BenchmarkRunReconciler reconciles BenchmarkRun objects. Everything that reaches outside
// the API server (time, Prometheus, HTTP to targets) is a field, so tests drive the real
// code paths with real or local stand-ins.
type BenchmarkRunReconciler struct {
	client.Client
	// APIReader reads without the cache: runner pods and cleanup listings, which the
	// operator would otherwise have to cache cluster-wide.
	APIReader client.Reader
	Recorder  events.EventRecorder
	Config    specs.Config
	// Presets are the targets/ manifests, by name.
	Presets map[string]*preset.Preset
	Clock   clock.PassiveClock
	// Metrics reads a trial's figures (internal/metrics against Prometheus in production).
	Metrics Measurer
	// Verify checks a target against the contract (verify.Verify in production).
	Verify func(context.Context, verify.Options) (verify.Report, error)
	// TargetURL is where a target answers: its Service's URL in production.
	TargetURL func(run *benchv1.BenchmarkRun, t benchv1.Target) string
	// NullResponderURL is where the null responder of a node pool answers (the calibration
	// trials' target): its Service's URL in production.
	NullResponderURL func(run *benchv1.BenchmarkRun, pool string) string
	Timeouts         Timeouts
	// ResultMetrics is what the manager exports about each run (internal/opmetrics); nil
	// exports nothing.
	ResultMetrics *opmetrics.Store
	// WatchNamespace, when set, is the only namespace this operator serves (namespaced
	// install): node-pool locks and listings stay inside it.
	WatchNamespace string
	// ProtectedNamespaces are refused in a cluster-wide install: a run there ends Failed,
	// Accepted=False with reason ProtectedNamespace, before it creates anything.
	ProtectedNamespaces []string
	// MaxConcurrentReconciles is how many runs are reconciled at once (default 1).
	MaxConcurrentReconciles int
	// MaxVerifications caps the targets whose contract checks run at once, across every
	// run; the others wait their turn. Zero is no cap.
	MaxVerifications int
	// MaxVerificationsPerNamespace caps one namespace's share of them, so one tenant's many
	// runs against stalling targets leave slots to the others. Zero is no cap.
	MaxVerificationsPerNamespace int
	// KeepTestRuns is how many finished TestRuns (with their runner pods and plan
	// ConfigMaps) a run keeps for debugging; older ones go once their figures are read.
	// Zero takes DefaultKeepTestRuns; negative keeps none.
	KeepTestRuns int
	// Wire finds the wire agents that capture each trial's target pods on their nodes; nil
	// leaves k6's figures the latency of record.
	Wire *WireAgents

	// verifications holds the contract checks running off the reconcile worker.
	verifications verifications

	skipNameValidation bool // tests start several managers in one process
}

// Timeouts bound the waits; zero values take the defaults. Every wait of a run has one,
// so a run whose dependencies stall ends Failed, cleaned up, with its node pools free.
type Timeouts struct {
	Database time.Duration // CloudNativePG Cluster and Pooler ready (default 15m)
	Targets  time.Duration // each target Deployment available, from its creation (default 10m)
	Verify   time.Duration // one target's contract checks (default 5m)
	// TrialStart is from a TestRun's creation until k6-operator has started its runners
	// (k6-operator down, runners unschedulable; default 10m).
	TrialStart time.Duration
	// TrialFinish is from the end of a trial's measured window until the TestRun has
	// finished and every runner pod has terminated (k6-operator stalled; default 5m).
	TrialFinish time.Duration
	// Unschedulable is how long a pod of a trial's TestRun (k6-operator's initializer,
	// runners or starter) may stay refused by the scheduler; past it the trial fails with the
	// scheduler's reason. Set it above the time a cluster autoscaler takes to add a node
	// (default 2m).
	Unschedulable time.Duration
	Poll          time.Duration // requeue while waiting on other operators (default 5s)
	Grace         time.Duration // after a window's end before Prometheus is read (default 15s)
	Measure       time.Duration // how long unreadable figures are retried (default 2m)
	// MeasureCall bounds one pass's Prometheus queries, so a slow Prometheus cannot hold
	// the reconcile worker (default 30s).
	MeasureCall time.Duration
	// Run bounds a whole run from its start (its first object created) to its end, so no
	// run holds its node pools longer, whatever its spec says (default 24h).
	Run time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&t.Database, 15*time.Minute)
	def(&t.Targets, 10*time.Minute)
	def(&t.Verify, 5*time.Minute)
	def(&t.TrialStart, 10*time.Minute)
	def(&t.TrialFinish, 5*time.Minute)
	def(&t.Unschedulable, 2*time.Minute)
	def(&t.MeasureCall, 30*time.Second)
	def(&t.Poll, 5*time.Second)
	def(&t.Grace, 15*time.Second)
	def(&t.Measure, 2*time.Minute)
	def(&t.Run, DefaultMaxRunDuration)
	return t
}

// scope is what the phases of one pass share; phases record into run.Status and the
// deferred patch writes it once.
type scope struct {
	run    *benchv1.BenchmarkRun
	now    time.Time
	notify engine.Notify // the engine's words, as the run's events
}

// phase is one step of the pipeline; a non-zero result or an error ends the pass.
type phase func(ctx context.Context, s *scope) (ctrl.Result, error)

// RBAC: only the verbs the code uses. Cached reads (r.Get, r.List) need get, list and
// watch; uncached listings (APIReader) list only; writes are create, patch and delete.
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns/status,verbs=patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs the phases in order for one BenchmarkRun.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.ResultMetrics.Forget(req.NamespacedName) // the run is gone: so are its series
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, run)
	}
	if added, err := r.ensureFinalizer(ctx, run); err != nil || added {
		return ctrl.Result{}, err // the update triggers the next pass
	}
	before := run.DeepCopy()
	s := &scope{run: run, now: r.Clock.Now(), notify: r.eventsOf(run)}
	defer func() {
		// One status write per pass, from what the phases recorded.
		run.Status.ObservedGeneration = run.Generation
		engine.GitOps(run)
		estimateFinish(run, s.now, r.Timeouts.Grace)
		run.Status.Bound() // free text cut to the documented lengths, so the status always fits
		patchErr := r.Status().Patch(ctx, run, client.MergeFrom(before))
		if patchErr != nil && err == nil && !apierrors.IsNotFound(patchErr) {
			err = patchErr
		}
		if patchErr == nil {
			r.ResultMetrics.Observe(run) // the exported series follow the written status
		}
	}()
	phases := []phase{r.accept, r.runDeadline, r.prerequisites, r.nodePools, r.database, r.targets, r.verification, r.trials, r.results}
	if finished(run) {
		phases = []phase{r.results, r.cleanup}
	}
	for _, p := range phases {
		if result, err = p(ctx, s); err != nil || !result.IsZero() {
			if c := asConflict(err); c != nil {
				return r.fail(s, c.condition, benchv1.ReasonNameConflict, c.Error())
			}
			return result, err
		}
	}
	return ctrl.Result{}, nil
}

// accept records that the spec was read and plans the trials once: their names stay the
// same across restarts, so a finished trial is never run again.
func (r *BenchmarkRunReconciler) accept(ctx context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	names := make([]string, 0, len(run.Spec.Targets))
	for _, t := range run.Spec.Targets {
		names = append(names, t.Name)
	}
	run.Status.TargetNames = strings.Join(names, ",")
	if run.Status.Phase == "" {
		run.Status.Phase = benchv1.PhasePending
	}
	if why := r.protectedNamespace(run.Namespace); why != "" {
		return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonProtectedNamespace, why)
	}
	if err := imagesAllowed(run, r.Config.AllowedRegistries); err != nil {
		return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonImageNotAllowed, err.Error())
	}
	// Once, before anything is created: an accepted run's pods are already pulling, and a
	// Secret removed later shows on them.
	if !meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionAccepted) {
		why, err := r.pullSecretsUsable(ctx, run)
		if err != nil {
			return ctrl.Result{}, err
		}
		if why != "" {
			return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonImagePullSecretInvalid, why)
		}
	}
	if len(run.Status.Trials) == 0 {
		trials, err := plan.Build(&run.Spec, r.presetEndpoints())
		if err != nil {
			return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonInvalidSpec, "the spec cannot be planned: "+err.Error())
		}
		// Each round's targets in an order drawn from a seed the status keeps: replayable.
		run.Status.OrderSeed = plan.OrderSeed(run.Spec.Load.OrderSeed, run.Status.OrderSeed)
		trials = plan.Shuffle(trials, run.Status.OrderSeed, plan.Groups(&run.Spec))
		// A generator-floor trial per scenario and load point, as in the local mode, when the
		// operator has a null responder to run them against.
		if r.Config.NullResponderImage != "" {
			trials = plan.WithCalibration(trials)
		}
		for _, t := range trials {
			run.Status.Trials = append(run.Status.Trials, t.Status())
		}
	}
	if run.Status.LoadGeneratorSizing == nil {
		sz, err := sizing.LoadGenerator(run)
		if err != nil {
			return r.fail(s, benchv1.ConditionAccepted, benchv1.ReasonInvalidSpec, "the load generator cannot be sized: "+err.Error())
		}
		run.Status.LoadGeneratorSizing = sz
		for _, z := range sz {
			r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonSpecAccepted, "Accept", "load point %d: %d k6 runner(s) × %dm (%s)",
				z.LoadPoint, z.Runners, z.RunnerCPUMillicores, z.Reason)
		}
	}
	if !meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionAccepted) {
		r.Recorder.Eventf(run, nil, "Normal", benchv1.ReasonSpecAccepted, "Accept",
			"accepted %d targets x %d scenarios: %d trials", len(run.Spec.Targets), len(run.Spec.Scenarios), len(run.Status.Trials))
	}
	setCondition(run, benchv1.ConditionAccepted, metav1.ConditionTrue, benchv1.ReasonSpecAccepted, "the spec passed validation")
	return ctrl.Result{}, nil
}

// imagesAllowed checks the run's bring-your-own images against the operator's registry
// allow-list, naming the field of the first one refused.
func imagesAllowed(run *benchv1.BenchmarkRun, allowed []string) error {
	for i, t := range run.Spec.Targets {
		if t.Image != "" {
			if err := specs.ImageAllowed(fmt.Sprintf("spec.targets[%d].image", i), t.Image, allowed); err != nil {
				return err
			}
		}
	}
	if img := run.Spec.LoadGenerator.Image; img != "" {
		return specs.ImageAllowed("spec.loadGenerator.image", img, allowed)
	}
	return nil
}

func (r *BenchmarkRunReconciler) presetEndpoints() map[string][]string {
	out := make(map[string][]string, len(r.Presets))
	for name, p := range r.Presets {
		for _, e := range p.Endpoints {
			out[name] = append(out[name], string(e))
		}
	}
	return out
}

// fail ends the run: the step condition says why, the phase is Failed, and the next pass
// cleans up.
func (r *BenchmarkRunReconciler) fail(s *scope, condition, reason, msg string) (ctrl.Result, error) {
	engine.Fail(s.run, condition, reason, msg, s.now, s.notify)
	return ctrl.Result{RequeueAfter: time.Millisecond}, nil
}

// eventsOf records what the engine says about run as its events.
func (r *BenchmarkRunReconciler) eventsOf(run *benchv1.BenchmarkRun) engine.Notify {
	return func(warning bool, reason, action, msg string) {
		typ := corev1.EventTypeNormal
		if warning {
			typ = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(run, nil, typ, reason, action, "%s", msg)
	}
}

// setPhase moves the run forward, never back (a restart re-runs earlier phases as checks).
func setPhase(run *benchv1.BenchmarkRun, p benchv1.Phase) {
	order := []benchv1.Phase{benchv1.PhasePending, benchv1.PhaseProvisioning, benchv1.PhaseVerifying,
		benchv1.PhaseRunning, benchv1.PhaseAnalyzing}
	idx := func(p benchv1.Phase) int {
		for i, o := range order {
			if o == p {
				return i
			}
		}
		return -1
	}
	if idx(p) > idx(run.Status.Phase) {
		run.Status.Phase = p
	}
}

// SetupWithManager registers the reconciler. Only core kinds are watched: the other
// operators' CRDs may be missing (the prerequisites phase reports it), and a watch on a
// missing kind would stop the manager; their objects are polled instead.
func (r *BenchmarkRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.Timeouts = r.Timeouts.withDefaults()
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Verify == nil {
		r.Verify = verify.Verify
	}
	if r.TargetURL == nil {
		r.TargetURL = specs.TargetBaseURL
	}
	if r.NullResponderURL == nil {
		r.NullResponderURL = specs.NullResponderBaseURL
	}
	if r.KeepTestRuns == 0 {
		r.KeepTestRuns = DefaultKeepTestRuns
	}
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkRun{}).Owns(&appsv1.Deployment{}).
		WithOptions(controller.Options{SkipNameValidation: &r.skipNameValidation, MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("benchmarkrun").Complete(r)
}
