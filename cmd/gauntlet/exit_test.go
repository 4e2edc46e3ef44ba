package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// Each way a command ends gives its documented exit status, and prints why once.
func TestExitCodes(t *testing.T) {
	var fail error
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "gauntlet", SilenceUsage: true, SilenceErrors: true}
		sub := &cobra.Command{Use: "x NAME", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return fail }}
		sub.Flags().Int("n", 0, "")
		sub.Flags().String("req", "", "")
		_ = sub.MarkFlagRequired("req")
		root.AddCommand(sub)
		markUsage(root)
		return root
	}
	for _, c := range []struct {
		name   string
		args   []string
		fail   error
		want   outcome.Code
		prints bool
	}{
		{"success", []string{"x", "a", "--req=1"}, nil, outcome.OK, false},
		{"an error", []string{"x", "a", "--req=1"}, errors.New("connection refused"), outcome.Error, true},
		{"a run failed", []string{"x", "a", "--req=1"}, exitWith(outcome.Failed, errors.New("run a failed")), outcome.Failed, true},
		{"SLO missed, said already", []string{"x", "a", "--req=1"}, exitWith(outcome.SLOMissed, nil), outcome.SLOMissed, false},
		{"timeout", []string{"x", "a", "--req=1"}, exitWith(outcome.Timeout, errors.New("timed out")), outcome.Timeout, true},
		{"compare --fail-on-regression", []string{"x", "a", "--req=1"}, errRegressed, outcome.Regressed, false},
		{"wrapped", []string{"x", "a", "--req=1"}, fmt.Errorf("ctx: %w", usage(errors.New("spec.load.rates"))), outcome.Usage, true},
		{"bad flag value", []string{"x", "a", "--req=1", "--n=lots"}, nil, outcome.Usage, true},
		{"unknown flag", []string{"x", "a", "--req=1", "--nope"}, nil, outcome.Usage, true},
		{"missing argument", []string{"x", "--req=1"}, nil, outcome.Usage, true},
		{"missing required flag", []string{"x", "a"}, nil, outcome.Usage, true},
		{"unknown command", []string{"nope"}, nil, outcome.Usage, true},
	} {
		fail = c.fail
		root := newRoot()
		root.SetArgs(c.args)
		var stderr bytes.Buffer
		code := reportError(root.Execute(), &stderr)
		if code != int(c.want) {
			t.Errorf("%s: exit status %d, want %d (%s)", c.name, code, c.want, c.want)
		}
		if printed := stderr.Len() > 0; printed != c.prints {
			t.Errorf("%s: printed %q, want printed=%v", c.name, stderr.String(), c.prints)
		}
	}
}

func TestCommandName(t *testing.T) {
	for argv0, want := range map[string]string{"gauntlet": "gauntlet", "/usr/local/bin/gauntlet": "gauntlet",
		"/usr/local/bin/kubectl-gauntlet": "kubectl gauntlet", "kubectl-gauntlet.exe": "kubectl gauntlet"} {
		if got := commandName(argv0); got != want {
			t.Errorf("commandName(%q) = %q, want %q", argv0, got, want)
		}
	}
}
