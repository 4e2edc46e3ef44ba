// Command gauntlet is the CLI: validate a BenchmarkRun, verify a target, run one locally.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "gauntlet",
		Short:         "Reproducible web-runtime benchmarks, on Kubernetes or on one machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	if err := root.Execute(); err != nil {
		if errors.Is(err, errRegressed) {
			os.Exit(3) // compare --fail-on-regression: the table said why
		}
		fmt.Fprintln(os.Stderr, "gauntlet:", err)
		os.Exit(1)
	}
}

// subcommands is filled by each command's file (validate.go, verify.go, ...) in its init,
// so adding a command never touches this file.
var subcommands []func() *cobra.Command
