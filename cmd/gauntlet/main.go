// Command gauntlet is the CLI: validate a BenchmarkRun, verify a target, run one locally.
package main

import (
	"io"
	"os"
	// validate reads a BenchmarkSchedule's spec.timeZone in the manager's time zone
	// database (Go's own), on any machine.
	_ "time/tzdata"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/textsafe"
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
	_, stderr := safeOutput(root, os.Stdout, os.Stderr)
	if err := root.Execute(); err != nil {
		os.Exit(reportError(err, stderr)) // the statuses of internal/outcome, docs/cli.md
	}
}

// safeOutput sends every command's output and errors through textsafe: status text,
// messages and history files carry text a tenant or a target chose, which must not
// reach the terminal as escape sequences. JSON and YAML output never holds a raw control
// character, so it passes unchanged.
func safeOutput(root *cobra.Command, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	out, errOut := textsafe.NewWriter(stdout), textsafe.NewWriter(stderr)
	root.SetOut(out)
	root.SetErr(errOut)
	return out, errOut
}

// subcommands is filled by each command's file (validate.go, verify.go, ...) in its init,
// so adding a command never touches this file.
var subcommands []func() *cobra.Command
