package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd() *cobra.Command {
	var (
		file, out, root, name string
		baselinePath          string
		isLocal, allowUnsafe  bool
		sharedCPUs, noLimits  bool
		scale                 float64
		overrides             transform.Overrides
	)
	cmd := &cobra.Command{
		Use:   "run --local -f FILE [--name N] [--scale F] [--warmup D] [--duration D] [--repetitions N] [--out DIR]",
		Short: "Run a BenchmarkRun on this machine (PostgreSQL, PgBouncer, targets and k6 as processes)",
		Long: "run --local executes one BenchmarkRun here: it validates FILE as the API server would,\n" +
			"installs and starts each target from targets/<preset>, verifies it against\n" +
			"targets/CONTRACT.md, drives it with k6 trial by trial (repetitions interleaved across\n" +
			"targets) and prints the results table. The results folder gets status.yaml (the run with\n" +
			"its status), results.json and report.html. --scale multiplies every load point, so a\n" +
			"seed written for a cluster fits this machine. Ctrl-C stops every process and writes what\n" +
			"was measured so far. Exit status (docs/cli.md): 0 succeeded, 2 refused (a field or flag named),\n" +
			"3 regressed against spec.baseline, 4 SLO missed, 5 failed or interrupted.\n\n" +
			"Each target runs under its resources as a kubelet would enforce them: in a cgroup of its own,\n" +
			"its CPU as a CFS quota (100 ms period) and its memory as a limit, on top of the CPU pinning;\n" +
			"this needs root and the cpu and memory cgroup controllers, and --no-limits runs without.\n\n" +
			"A spec may come from someone else, and here nothing sandboxes it, so the local mode refuses,\n" +
			"naming the field: PostgreSQL parameters outside an allow-list (seed 001's profile and\n" +
			"throughput tuning: memory, WAL, checkpoints, planner, parallelism, autovacuum, timeouts,\n" +
			"logging to stderr), so nothing like archive_command, shared_preload_libraries or\n" +
			"log_directory; PgBouncer parameters outside its allow-list (pool sizes, limits, timeouts);\n" +
			"target env that loads code (deny-list: LD_*, DYLD_*, NODE_OPTIONS, NODE_PATH, PYTHONPATH,\n" +
			"PYTHONSTARTUP, PYTHONHOME, PYTHONINSPECT, PERL5OPT, BASH_ENV, ENV, GUNICORN_CMD_ARGS, PATH\n" +
			"and the like; GODEBUG and other tuning knobs stay allowed) and HOST. Targets listen on\n" +
			"127.0.0.1 only; started as root, they run as the unprivileged user " + local.TargetUser + "\n" +
			"(hack/local-user.sh creates it), PostgreSQL and PgBouncer as postgres.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !isLocal {
				return usage(errors.New("only --local is implemented by this command; on a cluster, kubectl apply -f FILE and the operator runs it"))
			}
			run, err := loadRun(cmd.Context(), cmd, file, name)
			if err != nil {
				return usage(err)
			}
			changed, err := overrides.Apply(&run.Spec)
			if err != nil {
				return usage(err)
			}
			if changed != "" {
				// The flags must not make a spec the schema refuses (a duration past its bound).
				if err := revalidate(cmd.Context(), run, changed); err != nil {
					return usage(err)
				}
				if run.Annotations == nil {
					run.Annotations = map[string]string{}
				}
				run.Annotations[transform.OverridesAnnotation] = changed
				fmt.Fprintf(cmd.ErrOrStderr(), "gauntlet: load shortened from the spec: %s\n", changed)
			}
			if root == "" {
				if root, err = findRoot(); err != nil {
					return err
				}
			}
			// Fail before anything starts: the image refusal, --scale and presets first, then k6.
			probe := run.DeepCopy()
			if _, _, err := local.PrepareRun(probe, root, scale, allowUnsafe); err != nil {
				return usage(err) // the spec or --scale, named
			}
			if err := local.CheckLimits(noLimits); err != nil {
				return err
			}
			k6bin, err := k6.Binary(root)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", run.Name+"-"+time.Now().Format("20060102-150405"))
			}
			stderr := cmd.ErrOrStderr()
			if scale != 0 && scale != 1 {
				fmt.Fprintf(stderr, "gauntlet: load points scaled by %s (--scale): %s\n", transform.FormatScale(scale), loadPoints(probe))
			}
			fmt.Fprintf(stderr, "gauntlet: running %s locally; results in %s\n", run.Name, out)

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The null responder is this binary's own subcommand: shipped wherever gauntlet is.
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("locating this binary for the null responder: %w", err)
			}
			// A live progress line redraws itself with its own control sequences, so it
			// gets the terminal as it is and escapes its own text (internal/local).
			progress, live := stderr, isTerminal(stderr)
			if safe, ok := stderr.(*textsafe.Writer); ok && live {
				progress = safe.Unwrap()
			}
			run, runErr := local.Run(ctx, local.RunOptions{Run: run, Root: root, K6: k6bin, Scale: scale,
				AllowUnsafe: allowUnsafe, OutDir: out, Progress: progress, Live: live, NullResponder: []string{self, "null-responder"},
				SharedCPUs: sharedCPUs, NoLimits: noLimits, Baseline: baselinePath})
			if run.Status.StartedAt == nil {
				return runErr // refused before anything started
			}
			w := cmd.OutOrStdout()
			fmt.Fprintln(w)
			if err := report.WriteTable(w, run); err != nil {
				return err
			}
			if len(run.Status.Search) > 0 {
				fmt.Fprintln(w)
				if err := report.WriteSearch(w, run); err != nil {
					return err
				}
			}
			if run.Status.Baseline != nil || run.Spec.Baseline != nil {
				fmt.Fprintln(w)
				if err := report.WriteComparison(w, run); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, "\n%s: %s (trials %s). %s\n", run.Name, run.Status.Phase, run.Status.Progress, run.Status.Headline)
			fmt.Fprintf(w, "results: %s/{%s,%s,%s}\n", out, report.StatusFile, report.ResultsFile, report.ReportFile)
			// The exit status says how the run ended (internal/outcome, docs/cli.md).
			switch code, why := outcome.Of(run); {
			case errors.Is(runErr, local.ErrInterrupted):
				return exitWith(outcome.Failed, fmt.Errorf("interrupted: every process stopped; what was measured is in %s", out))
			case runErr != nil:
				return exitWith(outcome.Failed, runErr)
			case code == outcome.Failed || run.Status.Phase != benchv1.PhaseSucceeded:
				return exitWith(outcome.Failed, fmt.Errorf("run %s failed: see the trials' messages in %s", run.Name, filepath.Join(out, report.StatusFile)))
			case code != outcome.OK:
				return exitWith(code, fmt.Errorf("run %s: %s: %s", run.Name, code, why))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "file with one BenchmarkRun (YAML or JSON)")
	f.BoolVar(&isLocal, "local", false, "run on this machine (the only mode of this command)")
	f.Float64Var(&scale, "scale", 1, "multiply every rate or connection load point by this factor, e.g. 0.02")
	f.StringVar(&out, "out", "", "results folder (default results/<run-name>-<timestamp>)")
	f.StringVar(&name, "name", "", "the document to run when FILE holds several (its metadata.name)")
	f.DurationVar(&overrides.Warmup, "warmup", 0, "replace spec.load.warmup (recorded in the gauntlet.dev/overrides annotation)")
	f.DurationVar(&overrides.Duration, "duration", 0, "replace spec.load.duration, e.g. 30s instead of a seed's 5m (recorded)")
	f.Int32Var(&overrides.Repetitions, "repetitions", 0, "replace spec.load.repetitions (recorded)")
	f.BoolVar(&sharedCPUs, "shared-cpus", false, "do not give k6 and the targets disjoint CPUs (every row is then flagged SharedCores);\n"+
		"for a machine so busy with other work that k6 on half its CPUs cannot keep the rate")
	f.BoolVar(&noLimits, "no-limits", false, "run the targets without their spec.targets[].resources limits; by default each runs in a cgroup of its own\n"+
		"under its CPU as a CFS quota and its memory as a limit, as the kubelet does (needs root and the cpu and memory\n"+
		"cgroup controllers, v1 or v2); status.targets[].limits records either")
	f.BoolVar(&allowUnsafe, "allow-unsafe", false, "run a spec you trust even though it sets what the local mode refuses: PostgreSQL or PgBouncer parameters\n"+
		"outside the allow-lists (archive_command, shared_preload_libraries, file paths...), target env that loads code\n"+
		"(LD_PRELOAD, NODE_OPTIONS, PYTHONPATH, BASH_ENV...) or HOST (a listener beyond 127.0.0.1)")
	f.StringVar(&baselinePath, "baseline", "", "results folder or status.yaml of an earlier run to judge this one against\n"+
		"(default: spec.baseline.run's newest results folder beside --out); see gauntlet compare")
	f.StringVar(&root, "root", "", "repository root holding targets/ and hack/ (default: found upwards from the current folder)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

// loadRun reads FILE with the API server's own validation and defaults: field errors are
// printed and the command fails.
func loadRun(ctx context.Context, cmd *cobra.Command, file, name string) (*benchv1.BenchmarkRun, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := validation.New()
	if err != nil {
		return nil, err
	}
	docs, err := v.ReadAll(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	d, err := pick(docs, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(d.Errors) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s is invalid:\n", file, d.Name())
		for _, e := range d.Errors {
			fmt.Fprintf(cmd.ErrOrStderr(), "  - %s\n", e.Error())
		}
		return nil, fmt.Errorf("%s: %d field errors", file, len(d.Errors))
	}
	run := d.Run
	if run.Name == "" { // generateName only: name it as the API server would
		run.Name = run.GenerateName + time.Now().Format("150405")
	}
	return run, nil
}

// revalidate checks the run again after the command-line overrides changed its spec.
func revalidate(ctx context.Context, run *benchv1.BenchmarkRun, changed string) error {
	v, err := validation.New()
	if err != nil {
		return err
	}
	obj := run.DeepCopy()
	obj.APIVersion, obj.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if d := v.Validate(ctx, raw); len(d.Errors) > 0 {
		return fmt.Errorf("the spec with %s (from the command line) is invalid: %v", changed, d.Errors.ToAggregate())
	}
	return nil
}

// pick is the document named name, or the only one.
func pick(docs []validation.Document, name string) (validation.Document, error) {
	var names []string
	for _, d := range docs {
		if name != "" && d.Name() == name {
			return d, nil
		}
		names = append(names, d.Name())
	}
	switch {
	case name != "":
		return validation.Document{}, fmt.Errorf("no document named %q (it holds %v)", name, names)
	case len(docs) > 1:
		return validation.Document{}, fmt.Errorf("holds %d BenchmarkRuns %v: choose one with --name", len(docs), names)
	}
	return docs[0], nil
}

// findRoot walks up from the current folder to the one holding targets/CONTRACT.md.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "targets", "CONTRACT.md")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no targets/CONTRACT.md in this folder or above: run from the gauntlet repository or pass --root")
		}
		dir = parent
	}
}

func loadPoints(run *benchv1.BenchmarkRun) string {
	if run.Spec.Load.Model == benchv1.LoadModelClosed {
		return fmt.Sprintf("spec.load.connections %v", run.Spec.Load.Connections)
	}
	return fmt.Sprintf("spec.load.rates %v req/s", run.Spec.Load.Rates)
}

func isTerminal(w any) bool {
	if safe, ok := w.(*textsafe.Writer); ok {
		w = safe.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
