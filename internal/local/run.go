package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

// RunOptions is one local run of a BenchmarkRun.
type RunOptions struct {
	// Run is validated and defaulted (internal/validation); its status is filled in.
	Run *benchv1.BenchmarkRun
	// Root is the repository: targets/<preset>/, targets/schema.sql and hack/ live there.
	Root string
	// K6 is the k6 binary (k6.Binary).
	K6 string
	// Scale multiplies every load point (0: 1).
	Scale float64
	// OutDir receives status.yaml, results.json, report.html, logs/ and trials/.
	OutDir string
	// Progress receives the live progress line and notes (stderr); nil discards them.
	Progress io.Writer
	// Live redraws the progress line in place (Progress is a terminal).
	Live bool
	// Ports bounds the loopback ports of PostgreSQL, PgBouncer and the targets.
	Ports loopback.PortRange
	// NullResponder is the command serving the null responder, to which "--listen
	// 127.0.0.1:PORT" is added (the CLI gives `gauntlet null-responder`); empty: no
	// calibration trials, so no generator floor.
	NullResponder []string
	// SharedCPUs leaves k6 and the targets on every CPU (no pinning), as before placement
	// existed; the rows are then flagged SharedCores. For comparisons (hack/fidelity).
	SharedCPUs bool
	// NoLimits runs the targets without their resources' limits (--no-limits); by default
	// each target runs in a cgroup under its CPU quota and memory limit, as in a cluster.
	NoLimits bool
	// AllowUnsafe lets through what CheckUnsafe refuses (--allow-unsafe).
	AllowUnsafe bool
	// Baseline is a results folder or status.yaml to compare the run with (--baseline);
	// empty: spec.baseline.run's newest results folder beside OutDir, if the spec sets one.
	Baseline string
}

// ErrInterrupted is returned when ctx was cancelled (Ctrl-C): what was measured is written.
var ErrInterrupted = errors.New("interrupted")

// runner holds one run's state; its fields are only touched by the goroutine running it,
// but for what a duet's arms share while they run (measureTrial).
type runner struct {
	opts     RunOptions
	run      *benchv1.BenchmarkRun
	presets  map[string]*preset.Preset
	targets  map[string]*targetState
	services services
	progress *progress
	cpus     placement
	limits   *limits        // each target's cgroup
	null     *nullResponder // started at the first calibration trial
	noWire   string         // why the wire capture is unavailable, once known (wireMu)
	wireMu   sync.Mutex
	notify   engine.Notify // the engine's words: trouble and the searches' news are printed
}

// PrepareRun checks what the local mode can run before anything starts: the run's name
// (it names the results folder), what CheckUnsafe refuses unless allowUnsafe, --scale
// applied, bring-your-own images refused, every preset found. It returns the planned trials.
func PrepareRun(run *benchv1.BenchmarkRun, root string, scale float64, allowUnsafe bool) ([]plan.Trial, map[string]*preset.Preset, error) {
	spec := &run.Spec
	if err := CheckRunName(run); err != nil {
		return nil, nil, err
	}
	if !allowUnsafe {
		if err := UnsafeError(CheckUnsafe(spec)); err != nil {
			return nil, nil, err
		}
	}
	for i, t := range spec.Targets {
		if t.Name == plan.NullResponder {
			return nil, nil, fmt.Errorf("spec.targets[%d].name: %q is reserved for the generator floor's null responder", i, t.Name)
		}
		if t.Image != "" {
			return nil, nil, fmt.Errorf("spec.targets[%d].image: %q cannot run in the local mode (no container runtime here); use a preset, or run it on a cluster", i, t.Image)
		}
	}
	if scale == 0 {
		scale = 1
	}
	if err := transform.ScaleLoad(spec, scale); err != nil {
		return nil, nil, err
	}
	if !allowUnsafe { // after --scale, which multiplies the load points
		if err := ResourceError(CheckResources(spec, machineCPUs())); err != nil {
			return nil, nil, err
		}
	}
	if scale != 1 {
		if run.Annotations == nil {
			run.Annotations = map[string]string{}
		}
		run.Annotations[transform.ScaleAnnotation] = transform.FormatScale(scale)
	}
	all, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		return nil, nil, err
	}
	presets, endpoints := map[string]*preset.Preset{}, map[string][]string{}
	for _, p := range all {
		presets[p.Name] = p
		for _, e := range p.Endpoints {
			endpoints[p.Name] = append(endpoints[p.Name], string(e))
		}
	}
	for i, t := range spec.Targets {
		p, ok := presets[t.Preset]
		if !ok {
			return nil, nil, fmt.Errorf("spec.targets[%d].preset: no %s under %s", i, filepath.Join(t.Preset, preset.FileName), filepath.Join(root, "targets"))
		}
		if p.Local.Unsupported != "" {
			return nil, nil, fmt.Errorf("spec.targets[%d].preset: %s cannot run on this machine: %s", i, p.Name, p.Local.Unsupported)
		}
	}
	trials, err := plan.Build(spec, endpoints)
	if err != nil {
		return nil, nil, err
	}
	run.Status.OrderSeed = plan.OrderSeed(spec.Load.OrderSeed, run.Status.OrderSeed)
	trials = plan.Shuffle(trials, run.Status.OrderSeed, plan.Groups(&run.Spec))
	// As the operator's accept phase: the runners' sizes go in the status, and k6 is held
	// to them (generatorFor).
	if run.Status.LoadGeneratorSizing, err = sizing.LoadGenerator(run); err != nil {
		return nil, nil, fmt.Errorf("the load generator cannot be sized: %w", err)
	}
	return plan.WithCalibration(trials), presets, nil
}

// Run executes the run on this machine and writes its results folder. The returned run has
// its status filled in even on error; ErrInterrupted means ctx was cancelled. In every case
// every process it started has been stopped when it returns.
func Run(ctx context.Context, opts RunOptions) (*benchv1.BenchmarkRun, error) {
	run := opts.Run
	trials, presets, err := PrepareRun(run, opts.Root, opts.Scale, opts.AllowUnsafe)
	if err != nil {
		return run, err
	}
	if opts.K6 == "" {
		return run, errors.New("no k6 binary: run hack/k6.sh")
	}
	base, err := loadBaseline(run, opts.Baseline, opts.OutDir)
	if err != nil {
		return run, err
	}
	lim, err := enforceLimits(run, opts.NoLimits)
	if err != nil {
		return run, err
	}
	defer func() { _ = lim.finish(run) }() // removed however the run ends
	for _, dir := range []string{opts.OutDir, filepath.Join(opts.OutDir, "logs"), filepath.Join(opts.OutDir, "trials")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return run, err
		}
	}
	out := opts.Progress
	if out == nil {
		out = io.Discard
	}
	r := &runner{opts: opts, run: run, presets: presets, targets: map[string]*targetState{}, limits: lim}
	st := &run.Status
	now := metav1.Now()
	st.StartedAt, st.Phase, st.Trials, st.Results = &now, benchv1.PhaseProvisioning, nil, nil
	var names []string
	for _, t := range run.Spec.Targets {
		names = append(names, t.Name)
	}
	st.TargetNames = strings.Join(names, ",")
	for _, t := range trials {
		st.Trials = append(st.Trials, t.Status())
	}
	st.Progress = results.Progress(st.Trials)
	for i := range st.LoadGeneratorSizing { // sized by PrepareRun
		z := &st.LoadGeneratorSizing[i]
		z.Reason += generatorNote(*z, run, lim.run != nil)
	}
	r.cpus, st.Placement = placeCPUs(opts.SharedCPUs)
	r.cpus = placeDuet(&run.Spec, r.cpus, st.Placement)
	st.Environment = environment(run, presets)
	if len(opts.NullResponder) == 0 {
		skipCalibration(st.Trials, "no null responder command given: no generator floor")
	}
	setCondition(run, benchv1.ConditionAccepted, true, "SpecAccepted", acceptedMessage(&run.Spec))
	engine.GitOps(run)
	r.progress = newProgress(out, opts.Live, run)
	for _, n := range Unused(&run.Spec) {
		r.progress.note("%s", n)
	}
	r.notify = func(warning bool, reason, _, msg string) {
		if warning || reason == benchv1.ReasonSearchStep {
			r.progress.note("%s", msg)
		}
	}

	fatal := r.execute(ctx)
	r.progress.stop()
	// A target slow to stop after its last trial (a single event loop still working through
	// queued CPU-bound requests) is killed after the grace period, as a kubelet would: said,
	// but it does not void what was measured. Only the database failing to stop is fatal.
	stopped := r.stopTargets()
	if stopped != nil {
		r.progress.note("stopping: %v", stopped)
	}
	if err := r.services.stop(); err != nil {
		r.progress.note("stopping: %v", err)
		if fatal == "" && ctx.Err() == nil {
			fatal = err.Error()
		}
	}
	if err := lim.finish(run); err != nil {
		r.progress.note("removing the targets' cgroups: %v", err)
	}
	interrupted := ctx.Err() != nil
	finish(run, interrupted, fatal, nil) // the CLI prints the outcome
	base.apply(run, nil)                 // the CLI prints the verdict with the outcome
	if stopped != nil {
		if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionComplete); c != nil {
			msg, _, _ := strings.Cut(stopped.Error(), "\n")
			c.Message += "; at shutdown: " + msg
		}
	}
	if err := report.WriteOutputs(opts.OutDir, run); err != nil {
		return run, err
	}
	switch {
	case interrupted:
		return run, ErrInterrupted
	case fatal != "":
		return run, errors.New(fatal)
	}
	return run, nil
}

// execute brings up the database and targets, then runs every trial in plan order. It
// returns why the run could not go on, or "" (interruption is read from ctx).
func (r *runner) execute(ctx context.Context) string {
	st := &r.run.Status
	if err := r.install(ctx); err != nil {
		setCondition(r.run, benchv1.ConditionDependenciesReady, false, "InstallFailed", err.Error())
		return err.Error()
	}
	setCondition(r.run, benchv1.ConditionDependenciesReady, true, "Installed", "k6 and every target's install script")
	if err := r.startDatabase(ctx); err != nil {
		setCondition(r.run, benchv1.ConditionDatabaseReady, false, "StartFailed", err.Error())
		return err.Error()
	}
	if ctx.Err() != nil {
		return ""
	}
	st.Phase = benchv1.PhaseVerifying
	r.startTargets(ctx)
	if ctx.Err() != nil {
		return ""
	}
	if cause := r.noTargetReady(); cause != "" {
		// Nothing could be timed: no calibration, no trials, the cause said once.
		skipCalibration(st.Trials, "not run: no target is ready")
		return cause
	}
	st.Phase = benchv1.PhaseRunning
	engine.AdvanceSearch(r.run, r.notify) // a search whose first step was skipped says so now
	// A capacity search appends trials as its steps finish: the list grows while it runs.
	for i := 0; i < len(st.Trials); i++ {
		if ctx.Err() != nil {
			break
		}
		t := &st.Trials[i]
		if t.Phase != benchv1.TrialPending {
			continue // skipped, or failed because its target never passed verification
		}
		r.progress.begin(i)
		if arms := engine.DuetArms(r.run, i); arms != nil {
			r.runDuet(ctx, arms)
		} else {
			r.runTrial(ctx, t)
		}
		r.progress.end(i)
		if ctx.Err() == nil {
			engine.AdvanceSearch(r.run, r.notify)
		}
		st.Progress = results.Progress(st.Trials)
	}
	return ""
}

// stopTargets stops every target still running, and the null responder; each is gone
// when it returns.
func (r *runner) stopTargets() error {
	var errs []error
	for _, t := range r.run.Spec.Targets {
		if ts := r.targets[t.Name]; ts != nil && ts.proc != nil {
			if err := ts.proc.Stop(0); err != nil {
				errs = append(errs, err)
			}
			ts.proc = nil
		}
	}
	errs = append(errs, r.stopNullResponder())
	return errors.Join(errs...)
}
