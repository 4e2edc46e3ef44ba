// Command gauntlet is the CLI: validate a BenchmarkRun, verify a target, run one locally.
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "gauntlet",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: commandName(os.Args[0])},
		Short:         "Reproducible web-runtime benchmarks, on Kubernetes or on one machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	markUsage(root)
	if err := root.Execute(); err != nil {
		os.Exit(reportError(err, os.Stderr)) // the statuses of internal/outcome, docs/cli.md
	}
}

// subcommands is filled by each command's file (validate.go, verify.go, ...) in its init,
// so adding a command never touches this file.
var subcommands []func() *cobra.Command
