// Package schedule is the BenchmarkSchedule controller: it creates a schedule's runs at its
// cron times, each compared with the last good run, and keeps their history.
package schedule

import (
	"context"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/history"
	"github.com/gauntlet-bench/gauntlet/internal/opmetrics"
)

// Reasons of a schedule's events and conditions.
const (
	ReasonRunCreated      = "RunCreated"
	ReasonRunSkipped      = "RunSkipped"
	ReasonRunDeleted      = "RunDeleted"
	ReasonInvalidSchedule = "InvalidSchedule"
	ReasonSuspended       = "Suspended"
	ReasonScheduled       = "Scheduled"
	ReasonChangePoint     = "ChangePoint"
	// ReasonMissedSchedule: scheduled times not started within spec.startingDeadlineSeconds.
	ReasonMissedSchedule = "MissedSchedule"
	// ReasonRunReplaced: concurrencyPolicy Replace deleted a run in progress for a new one.
	ReasonRunReplaced = "RunReplaced"
)

// BenchmarkScheduleReconciler creates a schedule's runs at its cron times.
type BenchmarkScheduleReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock

	// APIReader reads the history ConfigMaps uncached (a cache would watch every ConfigMap);
	// SetupWithManager sets the manager's when nil, and the Client is used without one.
	APIReader client.Reader
	// Images maps a preset to its image (the operator's specs.Config.Images), for
	// triggers.imageDigests; Resolver resolves them (RegistryResolver when nil).
	Images   map[string]string
	Resolver DigestResolver
	// AllowedRegistries is the operator's --allowed-registries: a template image outside
	// it is not looked up. InsecureRegistries (host[:port]) may be asked over plain HTTP.
	AllowedRegistries  []string
	InsecureRegistries []string
	// RegistryTimeout bounds one pass's digest look-ups (DefaultRegistryTimeout when 0).
	RegistryTimeout time.Duration
	// Metrics is what the manager exports about each schedule (nil: nothing).
	Metrics *opmetrics.ScheduleStore
	// ProtectedNamespaces get no runs (the BenchmarkRun controller's list, empty in a
	// namespaced install): a schedule there is refused.
	ProtectedNamespaces []string
	// Database, when set, keeps the histories in PostgreSQL instead of ConfigMaps.
	Database *HistoryDatabase
	// Analyzer, when set, runs the change-point analyses off the reconcile workers
	// (SetupWithManager adds it to the manager); nil analyses within the pass.
	Analyzer *Analyzer

	skipNameValidation bool
	backoffOnce        sync.Once
	retries            workqueue.TypedRateLimiter[types.NamespacedName]
}

// scope is what the phases of one pass share. Phases record into schedule.Status and the
// deferred patch writes it once, against original (the schedule as read).
type scope struct {
	schedule *benchv1.BenchmarkSchedule
	original *benchv1.BenchmarkSchedule
	now      time.Time
	cron     cron.Schedule
	runs     []*benchv1.BenchmarkRun // the schedule's runs, oldest scheduled first
	latest   []history.Row           // the newest history run's rows (the figure gauges)
	keep     []string                // succeeded runs whose figures are not stored: not pruned
	retry    time.Duration           // ask again this soon (the history database was down)

	due       time.Time // the latest scheduled time in (last, now] to run; zero when none
	waiting   time.Time // due, held back by a run in progress until its starting deadline
	active    string    // a run still in progress
	forbidden bool      // runs in progress hold new runs back
	held      string    // why, for the skip event

	triggers        benchv1.ScheduleTriggers
	digests         []benchv1.ImageDigest // resolved this pass; nil when not, or when that failed
	templateChanged bool
	request         string // a new gauntlet.dev/run-now value to start a run for
	trigger, why    string // what starts a run this pass, and the event's words for it

	stop   bool // nothing more to decide this pass (an unreadable spec.schedule)
	result ctrl.Result
}

// phase is one step of a pass; an error ends the pass, as does setting scope.stop.
type phase func(ctx context.Context, sc *scope) error

// RBAC: only the verbs the code uses (the status is patched, never updated).
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/status,verbs=patch
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=gauntlet.dev,resources=benchmarkruns,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update

// Reconcile lists the schedule's runs, records them with their verdicts, copies the figures
// of those that succeeded into the history ConfigMap and finds its change points, deletes
// the runs past the history limits, starts the run of the latest scheduled time that has
// passed (once; earlier missed times are not caught up; with a starting deadline, those
// later than it are skipped and counted), one the gauntlet.dev/run-now annotation asks for,
// or one spec.triggers asks for (a new image digest, a changed template) unless suspended
// or, under Forbid, while one is in progress (Replace deletes it), and asks to be woken at
// the next time or digest check.
func (r *BenchmarkScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	s := &benchv1.BenchmarkSchedule{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil {
		if apierrors.IsNotFound(err) {
			r.Metrics.Forget(req.NamespacedName)
			if r.Analyzer != nil {
				r.Analyzer.forget(req.NamespacedName)
			}
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sc := &scope{schedule: s, original: s.DeepCopy(), now: r.Clock.Now()}
	defer func() {
		if err = r.writeStatus(ctx, sc, err); err != nil {
			result = ctrl.Result{} // controller-runtime ignores a result beside an error
		}
	}()
	phases := []phase{r.refuseProtected, r.parseSchedule, r.listRuns, r.recordHistory, r.prune, r.dueTime, r.inProgress,
		r.checkTriggers, r.chooseTrigger, r.startRun, r.summarize, r.requeue}
	for _, p := range phases {
		if err := p(ctx, sc); err != nil || sc.stop {
			return ctrl.Result{}, err
		}
	}
	return sc.result, nil
}

// writeStatus is the pass's one status write: a merge patch of what the phases recorded,
// written after a failed phase too, so what the earlier ones found (the history's change
// points, a digest seen first) is not found again. It returns the pass's error, else the
// patch's.
func (r *BenchmarkScheduleReconciler) writeStatus(ctx context.Context, sc *scope, err error) error {
	s := sc.schedule
	if err == nil {
		// Only a whole pass set Ready from this generation: kstatus reads the rest as in progress.
		s.Status.ObservedGeneration = s.Generation
	}
	patchErr := r.Status().Patch(ctx, s, client.MergeFrom(sc.original))
	if err != nil {
		return err
	}
	if patchErr == nil && !sc.stop {
		r.Metrics.Observe(s, sc.latest) // the exported series follow the written status
	}
	return patchErr
}

func (r *BenchmarkScheduleReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// SetupWithManager watches schedules and the runs they own: a run finishing wakes its
// schedule (a skipped time, the last good run, the history limits).
func (r *BenchmarkScheduleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	b := ctrl.NewControllerManagedBy(mgr).For(&benchv1.BenchmarkSchedule{}).Owns(&benchv1.BenchmarkRun{})
	if r.Analyzer != nil {
		if err := mgr.Add(r.Analyzer); err != nil {
			return err
		}
		// A finished analysis wakes its schedule, whose next pass writes it.
		b = b.WatchesRawSource(source.Channel(r.Analyzer.Events(), &handler.EnqueueRequestForObject{}))
	}
	return b.
		// Several workers: one schedule's slow pass (a registry up to RegistryTimeout, an
		// analysis) does not hold the others back; one schedule is never reconciled twice at once.
		WithOptions(controller.Options{SkipNameValidation: &r.skipNameValidation, MaxConcurrentReconciles: 4}).
		Named("benchmarkschedule").Complete(r)
}
