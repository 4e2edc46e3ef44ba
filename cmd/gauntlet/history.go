package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/changepoint"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

func init() { subcommands = append(subcommands, newHistoryCmd) }

func newHistoryCmd() *cobra.Command {
	var (
		output, figures, name string
		o                     history.Options
	)
	cmd := &cobra.Command{
		Use:   "history [flags] FOLDER",
		Short: "Find the change points over a folder of runs and fail on a new regression (for CI)",
		Long: "history reads every BenchmarkRun under FOLDER (the status.yaml of each `run --local`\n" +
			"results folder, or runs exported with `kubectl get benchmarkruns -o yaml`; --name keeps one\n" +
			"benchmark's), orders them by status.startedAt, and for each row (target, scenario, load\n" +
			"point) and figure of record (p50, p99, cpuPerRequest, capacity) finds the runs where the\n" +
			"level shifted: E-Divisive means (Matteson & James) with a permutation test, then Otava's\n" +
			"minimum magnitude. Each change point is printed with the levels either side, the change,\n" +
			"its p-value and direction.\n" +
			"Exit status: 0 no regression starts within the newest --last runs; 3 one does (Slower:\n" +
			"latency or CPU up, capacity down); 1 bad input (an unreadable folder or run file, no runs,\n" +
			"a bad flag). See docs/history.md.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" && output != "yaml" && output != "markdown" {
				return fmt.Errorf("-o %q: one of text, json, yaml, markdown", output)
			}
			if figures != "" {
				o.Figures = strings.Split(figures, ",")
			}
			if o.Last < 1 {
				return fmt.Errorf("--last %d: at least 1", o.Last)
			}
			runs, err := history.Load(args[0])
			if err != nil {
				return err
			}
			if name != "" {
				runs = history.Named(runs, name)
			}
			if len(runs) == 0 {
				return fmt.Errorf("%s: no BenchmarkRun found (status.yaml files or exported runs%s)", args[0],
					map[bool]string{true: " named " + name, false: ""}[name != ""])
			}
			rep, err := history.Analyze(runs, o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch output {
			case "json":
				data, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s\n", data)
				if err != nil {
					return err
				}
			case "yaml":
				data, err := yaml.Marshal(rep)
				if err != nil {
					return err
				}
				if _, err := out.Write(data); err != nil {
					return err
				}
			case "markdown":
				if err := history.WriteMarkdown(out, rep); err != nil {
					return err
				}
			default:
				if err := history.WriteText(out, rep); err != nil {
					return err
				}
			}
			if rep.Regressed {
				return errRegressed
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "text", "text, json, yaml or markdown (a pull request's comment or check summary)")
	f.StringVar(&name, "name", "", "only the runs of this name, or of the BenchmarkSchedule of this name (default: every run in FOLDER)")
	f.IntVar(&o.Last, "last", history.DefaultLast, "an alert counts as a new regression when it starts within the newest this many runs")
	f.StringVar(&figures, "figures", "", "comma-separated figures to analyse: p50, p99, cpuPerRequest, capacity (default all)")
	f.Float64Var(&o.Detect.MaxPValue, "max-pvalue", changepoint.DefaultMaxPValue, "significance level of the permutation test")
	f.IntVar(&o.Detect.Permutations, "permutations", changepoint.DefaultPermutations, "shuffles per candidate change point")
	f.Float64Var(&o.Detect.MinMagnitude, "min-magnitude", history.DefaultMinMagnitude, "smallest relative change reported (0.03: 3%)")
	f.Uint64Var(&o.Detect.Seed, "seed", 0, "seed of the permutations (the same seed gives the same answer)")
	return cmd
}
