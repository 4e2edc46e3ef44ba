package local

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/verify"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// services are the database processes a run shares between its targets.
type services struct {
	pg          *localdb.Postgres
	bouncer     *localdb.PgBouncer
	databaseURL string // what targets get as DATABASE_URL; empty: no database
	// lost, once set, says which of them exited during the run: the trials that read the
	// database are not timed from then on (their errors would be the database's, not the
	// targets').
	lost string
}

func (s *services) stop() error {
	var errs []error
	if s.bouncer != nil {
		errs = append(errs, s.bouncer.Stop())
		s.bouncer = nil
	}
	if s.pg != nil {
		errs = append(errs, s.pg.Stop())
		s.pg = nil
	}
	return errors.Join(errs...)
}

// targetState is one spec.targets entry during the run.
type targetState struct {
	spec      benchv1.Target
	preset    *preset.Preset
	endpoints []preset.Endpoint // what verification checks: what its trials request
	proc      *Target
	// broken, when set, fails every remaining trial of the target without timing it.
	broken string
}

// install runs each preset's install script once (they cache their builds).
func (r *runner) install(ctx context.Context) error {
	done := map[string]bool{}
	for _, t := range r.run.Spec.Targets {
		if done[t.Preset] {
			continue
		}
		done[t.Preset] = true
		r.progress.note("installing %s (bash %s, cached)", t.Preset, r.presets[t.Preset].Local.Install)
		if err := Install(ctx, r.opts.Root, r.presets[t.Preset]); err != nil {
			return err
		}
	}
	return nil
}

// needsDatabase: a trial that will run reads PostgreSQL (a db-* workload or an /api/db/ path).
func (r *runner) needsDatabase() bool {
	for _, t := range r.run.Status.Trials {
		if t.Phase != benchv1.TrialSkipped && r.readsDatabase(t.Scenario) {
			return true
		}
	}
	return false
}

// readsDatabase: the scenario's workload or one of its own requests reads PostgreSQL.
func (r *runner) readsDatabase(scenario string) bool {
	for _, s := range r.run.Spec.Scenarios {
		if s.Name != scenario {
			continue
		}
		if w, err := workload.Lookup(s.Workload); err == nil && w.NeedsDatabase {
			return true
		}
		for _, q := range s.Requests {
			if strings.HasPrefix(q.Path, "/api/db/") {
				return true
			}
		}
	}
	return false
}

// startDatabase starts PostgreSQL with spec.database's parameters and the schema, and
// PgBouncer in front of it unless connectVia is direct; nothing when no trial needs them.
func (r *runner) startDatabase(ctx context.Context) error {
	db := r.run.Spec.Database
	if db == nil || !r.needsDatabase() {
		setCondition(r.run, benchv1.ConditionDatabaseReady, true, "NotRequired", "no scenario reads the database")
		return nil
	}
	r.progress.note("starting PostgreSQL and PgBouncer (%s pooling)", db.Pooler.PoolMode)
	pg, err := localdb.StartPostgres(ctx, localdb.PostgresOptions{Ports: r.opts.Ports, Parameters: db.Parameters, CPUs: r.cpus.target,
		Schema: filepath.Join(r.opts.Root, "targets", "schema.sql")})
	if err != nil {
		return fmt.Errorf("spec.database: %w", err)
	}
	r.services.pg, r.services.databaseURL = pg, pg.DSN()
	msg := fmt.Sprintf("PostgreSQL on 127.0.0.1:%d", pg.Port)
	if db.ConnectVia != benchv1.ConnectViaDirect {
		b, err := localdb.StartPgBouncer(ctx, localdb.PgBouncerOptions{Postgres: pg, PoolMode: db.Pooler.PoolMode,
			Parameters: db.Pooler.Parameters, Ports: r.opts.Ports, CPUs: r.cpus.target})
		if err != nil {
			return fmt.Errorf("spec.database.pooler: %w", err)
		}
		r.services.bouncer, r.services.databaseURL = b, b.DSN()
		msg += fmt.Sprintf(", PgBouncer (%s) on 127.0.0.1:%d", db.Pooler.PoolMode, b.Port)
	}
	setCondition(r.run, benchv1.ConditionDatabaseReady, true, "Started", msg)
	return nil
}

// startTargets starts and verifies every target before any timing. A target that does not
// start or fails verification has all its trials failed with the reason, and is never timed.
func (r *runner) startTargets(ctx context.Context) {
	var notReady, unverified []string
	for _, t := range r.run.Spec.Targets {
		ts := &targetState{spec: t, preset: r.presets[t.Preset]}
		ts.endpoints = plan.VerifyEndpoints(&r.run.Spec, r.run.Status.Trials, t.Name, ts.preset)
		r.targets[t.Name] = ts
		err := r.startTarget(ctx, ts)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			continue
		}
		ts.broken = err.Error()
		if errors.Is(err, errVerification) {
			unverified = append(unverified, t.Name)
		} else {
			notReady = append(notReady, t.Name)
		}
		r.progress.note("%v", err)
		for i := range r.run.Status.Trials {
			if tr := &r.run.Status.Trials[i]; tr.Target == t.Name && tr.Phase == benchv1.TrialPending {
				tr.Phase, tr.Message = benchv1.TrialFailed, "not timed: "+ts.broken
			}
		}
	}
	setCondition(r.run, benchv1.ConditionTargetsReady, len(notReady) == 0, reasonFor(notReady, "Started", "StartFailed"), listed("did not start", notReady))
	setCondition(r.run, benchv1.ConditionTargetsVerified, len(unverified)+len(notReady) == 0, reasonFor(unverified, "ContractChecked", "VerificationFailed"), listed("failed verification", unverified))
}

// noTargetReady says why nothing can be timed when no target started and passed
// verification, "" when one did. A cause every target shares (an install, a folder, a
// port range) is said once, with the targets it stopped.
func (r *runner) noTargetReady() string {
	var names []string
	causes := map[string][]string{}
	var order []string
	for _, t := range r.run.Spec.Targets {
		ts := r.targets[t.Name]
		if ts == nil || ts.broken == "" {
			return ""
		}
		names = append(names, t.Name)
		cause := strings.ReplaceAll(ts.broken, t.Name, "{target}")
		if causes[cause] == nil {
			order = append(order, cause)
		}
		causes[cause] = append(causes[cause], t.Name)
	}
	if len(order) == 1 && len(names) > 1 {
		return fmt.Sprintf("no target is ready (%s): %s", strings.Join(names, ", "),
			strings.ReplaceAll(order[0], "{target}", names[0]))
	}
	var each []string
	for _, c := range order {
		each = append(each, strings.ReplaceAll(c, "{target}", causes[c][0]))
	}
	return "no target is ready: " + strings.Join(each, "; ")
}

func reasonFor(bad []string, ok, failed string) string {
	if len(bad) > 0 {
		return failed
	}
	return ok
}

func listed(what string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return what + ": " + strings.Join(names, ", ")
}

var errVerification = errors.New("failed verification against targets/CONTRACT.md")

// startTarget starts the target with the environment the cluster gives it, waits for
// /healthz and verifies it. On error nothing of it is left running.
func (r *runner) startTarget(ctx context.Context, ts *targetState) error {
	t := ts.spec
	opts := TargetOptions{Preset: ts.preset, Ports: r.opts.Ports, Workers: int(t.Workers), CPUs: r.cpus.targetCPUs(t.Name),
		DatabaseURL: r.services.databaseURL, LogFile: filepath.Join(r.opts.OutDir, "logs", t.Name+".log"),
		Env: map[string]string{}}
	for _, e := range t.Env {
		opts.Env[e.Name] = e.Value // the schema forbids the contract's own variables here
	}
	if db := r.run.Spec.Database; db != nil {
		opts.PoolMax, opts.Prepared = int(db.AppPool.Max), db.PreparedStatements.DBPrepared()
		if db.AppPool.Min != nil {
			opts.PoolMin = int(*db.AppPool.Min)
			if opts.PoolMin == 0 {
				opts.Env["DB_POOL_MIN"] = "0" // StartTarget reads a zero PoolMin as "default (5)"
			}
		}
	}
	g, err := r.limits.add(r.run, t, r.cpus.targetCPUs(t.Name))
	if err != nil {
		return err
	}
	opts.Cgroup = g
	r.progress.note("starting %s (%s, %d worker(s); limits: %s)", t.Name, t.Preset, max(t.Workers, 1), targetStatus(r.run, t.Name).Limits.Message)
	proc, err := StartTarget(ctx, opts)
	if err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	admin := ""
	if r.services.pg != nil {
		admin = r.services.pg.AdminDSN()
	}
	vopts := verify.ForPreset(ts.preset, proc.URL, ts.endpoints)
	vopts.AdminDSN = admin
	rep, err := verify.Verify(ctx, vopts)
	if err == nil && !rep.Passed() {
		var b strings.Builder
		rep.WriteText(&b, false)
		r.progress.note("target %s %v:\n%s", t.Name, errVerification, strings.TrimRight(b.String(), "\n"))
		err = fmt.Errorf("target %s %w: %s", t.Name, errVerification, strings.Join(rep.Failures(), "; "))
	}
	if err != nil {
		_ = proc.Stop(0)
		return err
	}
	r.progress.note("%s passed verification (%d endpoints) at %s", t.Name, len(ts.endpoints), proc.URL)
	ts.proc = proc
	return nil
}
