package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/report"
)

func init() { subcommands = append(subcommands, newCompareCmd) }

// errRegressed makes the exit status 3 (outcome.Regressed) under --fail-on-regression.
var errRegressed = errors.New("regressed")

func newCompareCmd() *cobra.Command {
	var (
		metric, minEffect, output string
		failOnRegression          bool
	)
	cmd := &cobra.Command{
		Use:   "compare [BASELINE] RUN",
		Short: "Judge RUN against BASELINE, row by row, and RUN's same-run pairs (results folders or status.yaml files)",
		Long: "compare reads two runs (a results folder or a status.yaml each: `kubectl get br NAME -o yaml`\n" +
			"works too) and judges every result row of RUN against the same row (target, scenario, load\n" +
			"point) of BASELINE from the repetitions of both: the Mann-Whitney U test at alpha 0.05 (at\n" +
			"least 4 repetitions a side) and the Hodges-Lehmann shift with its 95% interval against a\n" +
			"minimum effect. Faster/Slower: significant and at least the minimum effect; NoChange: the\n" +
			"interval lies within ± the minimum effect, or the shift is significant but smaller;\n" +
			"Inconclusive otherwise. The metric and minimum effect default to RUN's spec.baseline, else\n" +
			"p50 and 0.05. Rows of a target with spec.targets[].baselineTarget are judged against that\n" +
			"target's rows of RUN itself (measured in the same rounds); with RUN alone, only those are.\n" +
			"It is what the operator and `run --local` record as the Regressed condition.",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" && output != "markdown" {
				return usage(fmt.Errorf("-o %q: one of text, json, markdown", output))
			}
			var base *benchv1.BenchmarkRun
			var baseFile string
			if len(args) == 2 {
				var err error
				if base, baseFile, err = local.ReadRun(args[0]); err != nil {
					return fmt.Errorf("BASELINE: %w", err)
				}
			}
			run, _, err := local.ReadRun(args[len(args)-1])
			if err != nil {
				return fmt.Errorf("RUN: %w", err)
			}
			if base == nil && !compare.HasPairs(run) {
				return usage(errors.New("RUN has no spec.targets[].baselineTarget to judge within it: name a BASELINE run too"))
			}
			b := &benchv1.Baseline{}
			if run.Spec.Baseline != nil {
				*b = *run.Spec.Baseline
			}
			if metric != "" {
				b.Metric = metric
			}
			if minEffect != "" {
				b.MinEffect = minEffect
			}
			o, err := compare.OptionsFrom(b)
			if err != nil {
				return usage(fmt.Errorf("%w (--metric, --min-effect)", err))
			}
			compare.Apply(run, base, baseFile, o)
			var werr error
			switch output {
			case "json":
				werr = writeComparisonJSON(cmd.OutOrStdout(), run)
			case "markdown":
				werr = report.WriteComparisonMarkdown(cmd.OutOrStdout(), run)
			default:
				werr = report.WriteComparison(cmd.OutOrStdout(), run)
			}
			if werr != nil {
				return werr
			}
			if !failOnRegression {
				return nil
			}
			if compare.Regressed(run) {
				cmd.SilenceErrors = true
				return errRegressed
			}
			// A verdict not reached, or a RUN whose rows support no answer, is no pass.
			if why := compare.Unreached(run); why != "" {
				return exitWith(outcome.Inconclusive, errors.New(why))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&metric, "metric", "", "latency percentile compared: p50, p90, p95, p99 or p999 (default: RUN's spec.baseline.metric, else p50)")
	f.StringVar(&minEffect, "min-effect", "", `smallest relative shift that counts, e.g. "0.05" (default: RUN's spec.baseline.minEffect, else 0.05)`)
	f.StringVarP(&output, "output", "o", "text", "text, json (the verdicts as data) or markdown (a pull request's comment or check summary)")
	f.BoolVar(&failOnRegression, "fail-on-regression", false, "exit with status 3 when a row is Slower, 7 when no verdict could be reached (for CI)")
	return cmd
}
