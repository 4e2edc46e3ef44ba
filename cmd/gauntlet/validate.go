package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Check BenchmarkRun and BenchmarkSchedule documents with the API server's own schema and CEL rules",
		Long: "validate decodes every document in FILE strictly (unknown fields are errors), applies\n" +
			"the CRD's defaults and evaluates its OpenAPI and CEL rules as the API server judges\n" +
			"kubectl apply, then what the operator refuses when it accepts a run (resources,\n" +
			"database storage, request paths, image names, node selectors). It is stricter than\n" +
			"the API server in one place: a submitted document may not carry finalizers or\n" +
			"ownerReferences. A BenchmarkSchedule is checked as the schedule controller reads it\n" +
			"too (its cron, spec.timeZone in this machine's time zone database, times at least\n" +
			"30s apart, a name of at most 63 characters), and its template as the BenchmarkRun\n" +
			"it creates, the errors named spec.template.spec.... Errors name the field.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := os.Open(file)
			if err != nil {
				return err
			}
			defer f.Close()
			v, err := validation.NewWithSchedules()
			if err != nil {
				return err
			}
			docs, err := v.ReadAll(cmd.Context(), f)
			if err != nil {
				return usage(fmt.Errorf("%s: %w", file, err))
			}
			invalid := 0
			for _, d := range docs {
				if len(d.Errors) == 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: %s is valid\n", file, d.Name())
					continue
				}
				invalid++
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s is invalid:\n", file, d.Name())
				for _, e := range d.Errors {
					fmt.Fprintf(cmd.OutOrStdout(), "  - %s\n", e.Error())
				}
			}
			if invalid > 0 {
				return usage(fmt.Errorf("%d of %d documents invalid", invalid, len(docs)))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "file with one or more BenchmarkRun or BenchmarkSchedule documents (YAML or JSON)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}
