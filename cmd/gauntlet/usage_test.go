package main

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagUsageHasNoBackquotes: pflag reads the first `quoted` word of a flag's usage as the
// name of its value, so "see `gauntlet compare`" prints as "--baseline gauntlet compare" in
// --help. No flag of any command may carry backquotes.
func TestFlagUsageHasNoBackquotes(t *testing.T) {
	root := &cobra.Command{Use: "gauntlet"}
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); name != "" && name != f.Value.Type() && !typeNames[name] {
				t.Errorf("%s --%s: --help shows its value as %q (backquotes in the usage)", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// typeNames are the value names pflag prints for its own types.
var typeNames = map[string]bool{"string": true, "int": true, "duration": true, "float": true, "strings": true, "uint": true}
