package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Whatever a command prints, to stdout or stderr, reaches the terminal without its
// control sequences: a crafted history file's title and screen-clear sequences are
// shown as escapes.
func TestOutputIsEscapeSafe(t *testing.T) {
	const hostile = "run \x1b]0;owned\x07\x1b[2J\x1b[H done"
	root := &cobra.Command{Use: "gauntlet", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(&cobra.Command{Use: "echo", RunE: func(cmd *cobra.Command, _ []string) error {
		cmd.Println(hostile)
		cmd.PrintErrln(hostile)
		_, err := cmd.OutOrStdout().Write([]byte(hostile + "\n"))
		return err
	}})
	var out, errOut bytes.Buffer
	safeOutput(root, &out, &errOut)
	root.SetArgs([]string{"echo"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
		if strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, `run \x1b]0;owned\x07\x1b[2J\x1b[H done`) {
			t.Errorf("%s: %q: want the control characters escaped", name, got)
		}
	}
}
