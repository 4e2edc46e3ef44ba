// Package controllers holds the BenchmarkRun reconciler: a short pipeline of phase functions,
// one file per concern, with the status patched once at the end of each pass.
package controllers

import (
	"context"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
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
	Timeouts  Timeouts

	skipNameValidation bool // tests start several managers in one process
}

// Timeouts bound the waits; zero values take the defaults.
type Timeouts struct {
	Database time.Duration // CloudNativePG Cluster and Pooler ready (default 15m)
	Targets  time.Duration // every target Deployment available (default 10m)
	Poll     time.Duration // requeue while waiting on other operators (default 5s)
	Grace    time.Duration // after a window's end before Prometheus is read (default 15s)
	Measure  time.Duration // how long unreadable figures are retried (default 2m)
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&t.Database, 15*time.Minute)
	def(&t.Targets, 10*time.Minute)
	def(&t.Poll, 5*time.Second)
	def(&t.Grace, 15*time.Second)
	def(&t.Measure, 2*time.Minute)
	return t
}

// scope is what the phases of one pass share; phases record into run.Status and the
// deferred patch writes it once.
type scope struct {
	run *benchv1.BenchmarkRun
	now time.Time
}

// phase is one step of the pipeline; a non-zero result or an error ends the pass.
type phase func(ctx context.Context, s *scope) (ctrl.Result, error)

// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs the phases in order for one BenchmarkRun.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, run)
	}
	if added, err := r.ensureFinalizer(ctx, run); err != nil || added {
		return ctrl.Result{}, err // the update triggers the next pass
	}
	before := run.DeepCopy()
	s := &scope{run: run, now: r.Clock.Now()}
	defer func() {
		// One status write per pass, from what the phases recorded.
		run.Status.ObservedGeneration = run.Generation
		gitOpsConditions(run)
		run.Status.Bound() // free text cut to the documented lengths, so the status always fits
		if patchErr := r.Status().Patch(ctx, run, client.MergeFrom(before)); patchErr != nil && err == nil && !apierrors.IsNotFound(patchErr) {
			err = patchErr
		}
	}()
	phases := []phase{r.accept, r.prerequisites, r.database, r.targets, r.verification, r.trials, r.results}
	if finished(run) {
		phases = []phase{r.results, r.cleanup}
	}
	for _, p := range phases {
		if result, err = p(ctx, s); err != nil || !result.IsZero() {
			if c := asConflict(err); c != nil {
				return r.fail(s, c.condition, ReasonNameConflict, c.Error())
			}
			return result, err
		}
	}
	return ctrl.Result{}, nil
}

// accept records that the spec was read and plans the trials once: their names stay the
// same across restarts, so a finished trial is never run again.
func (r *BenchmarkRunReconciler) accept(_ context.Context, s *scope) (ctrl.Result, error) {
	run := s.run
	names := make([]string, 0, len(run.Spec.Targets))
	for _, t := range run.Spec.Targets {
		names = append(names, t.Name)
	}
	run.Status.TargetNames = strings.Join(names, ",")
	if run.Status.Phase == "" {
		run.Status.Phase = benchv1.PhasePending
	}
	if len(run.Status.Trials) == 0 {
		trials, err := plan.Build(&run.Spec, r.presetEndpoints())
		if err != nil {
			return r.fail(s, benchv1.ConditionAccepted, ReasonInvalidSpec, "the spec cannot be planned: "+err.Error())
		}
		for _, t := range trials {
			run.Status.Trials = append(run.Status.Trials, t.Status())
		}
	}
	if !meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionAccepted) {
		r.Recorder.Eventf(run, nil, "Normal", ReasonSpecAccepted, "Accept",
			"accepted %d targets x %d scenarios: %d trials", len(run.Spec.Targets), len(run.Spec.Scenarios), len(run.Status.Trials))
	}
	setCondition(run, benchv1.ConditionAccepted, metav1.ConditionTrue, ReasonSpecAccepted, "the spec passed validation")
	return ctrl.Result{}, nil
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
// only cleans up.
func (r *BenchmarkRunReconciler) fail(s *scope, condition, reason, msg string) (ctrl.Result, error) {
	setCondition(s.run, condition, metav1.ConditionFalse, reason, msg)
	s.run.Status.Phase = benchv1.PhaseFailed
	s.run.Status.FinishedAt = &metav1.Time{Time: s.now}
	r.Recorder.Eventf(s.run, nil, "Warning", reason, "Fail", "%s", msg)
	return ctrl.Result{RequeueAfter: time.Millisecond}, nil
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
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkRun{}).Owns(&appsv1.Deployment{}).
		WithOptions(controller.Options{SkipNameValidation: &r.skipNameValidation}).
		Named("benchmarkrun").Complete(r)
}
