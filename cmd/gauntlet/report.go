package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gauntlet-bench/gauntlet/internal/report"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var (
		cf  clusterFlags
		out string
	)
	cmd := &cobra.Command{
		Use:   "report RUN [--out FILE] [-n NAMESPACE]",
		Short: "Write the HTML report of a cluster run (the report.html of run --local)",
		Long: "report reads the BenchmarkRun RUN through your kubeconfig and writes the report that\n" +
			"run --local writes as report.html: the results table and inline SVG charts per scenario,\n" +
			"one self-contained file to open in a browser. A run still going gets the rows so far.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := cf.client()
			if err != nil {
				return err
			}
			run, err := getRun(cmd.Context(), cl, ns, args[0])
			if err != nil {
				return err
			}
			html, err := report.Report(run)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if out == "-" {
				_, err = cmd.OutOrStdout().Write(html)
				return err
			}
			if out == "" {
				out = run.Name + ".html"
			}
			if err := os.WriteFile(out, html, 0o644); err != nil {
				return err
			}
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(cmd.ErrOrStderr(), "report: %s\n", abs)
			return nil
		},
	}
	cf.add(cmd.Flags())
	cmd.Flags().StringVar(&out, "out", "", `file to write (default RUN.html; "-" for stdout)`)
	return cmd
}
