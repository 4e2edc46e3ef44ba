package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// exitError carries the exit status a command ends with (internal/outcome's table). A nil
// err means the command already said why (a table, a status line) and prints nothing more.
type exitError struct {
	code outcome.Code
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return e.code.String()
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitWith gives err the exit status code.
func exitWith(code outcome.Code, err error) error { return &exitError{code: code, err: err} }

// usage marks err as bad input (exit status 2).
func usage(err error) error {
	if err == nil {
		return nil
	}
	return exitWith(outcome.Usage, err)
}

// exitCode is the exit status for what Execute returned; unmarked errors are 1.
func exitCode(err error) outcome.Code {
	var e *exitError
	switch {
	case err == nil:
		return outcome.OK
	case errors.As(err, &e):
		return e.code
	case errors.Is(err, errRegressed):
		return outcome.Regressed
	case strings.HasPrefix(err.Error(), "unknown command"), strings.HasPrefix(err.Error(), "required flag"):
		return outcome.Usage // cobra's own usage errors, unwrapped
	}
	return outcome.Error
}

// reportError prints err (unless its command already said why) and returns the exit status.
func reportError(err error, stderr io.Writer) int {
	code := exitCode(err)
	var e *exitError
	if err != nil && !errors.Is(err, errRegressed) && (!errors.As(err, &e) || e.err != nil) {
		fmt.Fprintln(stderr, "gauntlet:", err)
	}
	return int(code)
}

// markUsage makes every flag and argument error of root and its subcommands exit with 2.
func markUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error { return usage(args(cmd, a)) }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
