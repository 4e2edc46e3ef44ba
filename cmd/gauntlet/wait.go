package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

func init() { subcommands = append(subcommands, newWaitCmd) }

func newWaitCmd() *cobra.Command {
	var (
		cf                clusterFlags
		output            string
		timeout, interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "wait RUN [--timeout D] [-n NAMESPACE] [-o json|yaml]",
		Short: "Wait for a cluster run to finish; the exit status says how it ended",
		Long: "wait reads the BenchmarkRun RUN through your kubeconfig every --interval until it has\n" +
			"finished (phase Succeeded or Failed: Complete, and Ready True or False for good), printing\n" +
			"its progress on stderr, then prints its status (as `gauntlet status`) and exits with the\n" +
			"run's outcome: 0 succeeded, 3 regressed against spec.baseline, 4 SLO missed, 5 failed,\n" +
			"6 --timeout passed first, 1 the run could not be read (deleted, the cluster unreachable).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if timeout < 0 || interval <= 0 {
				return usage(errors.New("--timeout must be 0 (no limit) or more, --interval more than 0"))
			}
			cl, ns, err := cf.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			var (
				run     *benchv1.BenchmarkRun
				last    string
				readErr error
			)
			err = wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
				r, err := getRun(ctx, cl, ns, args[0])
				switch {
				case err != nil && (apierrors.IsNotFound(err) || run == nil && !errors.Is(err, context.DeadlineExceeded)):
					return false, err // never there, or deleted while waited on
				case err != nil:
					readErr = err // a passing API error: the next poll tries again
					return false, nil
				}
				run, readErr = r, nil
				if now := fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Progress); now != last {
					last = now
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", r.Name, progressLine(r))
				}
				return outcome.Finished(r), nil
			})
			if err != nil {
				if run == nil || !wait.Interrupted(err) {
					return err
				}
				why := fmt.Errorf("%s still %s (trials %s) after %s", run.Name, run.Status.Phase, run.Status.Progress, timeout)
				if readErr != nil {
					why = fmt.Errorf("%w; last read: %v", why, readErr)
				}
				return exitWith(outcome.Timeout, why)
			}
			if output != "" {
				err = printData(cmd.OutOrStdout(), output, statusOf(run))
			} else {
				err = writeStatus(cmd.OutOrStdout(), run, time.Now())
			}
			if err != nil {
				return err
			}
			if code, _ := outcome.Of(run); code != outcome.OK {
				return exitWith(code, nil) // the status above said why
			}
			return nil
		},
	}
	cf.add(cmd.Flags())
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "", "json or yaml: print the final status as data")
	f.DurationVar(&timeout, "timeout", 0, "give up after this long with exit status 6, e.g. 2h (default 0: no limit)")
	f.DurationVar(&interval, "interval", 5*time.Second, "how often to read the run")
	return cmd
}

// progressLine is one line of wait's progress: phase, trials, estimated finish.
func progressLine(r *benchv1.BenchmarkRun) string {
	s := string(r.Status.Phase)
	if s == "" {
		s = "not yet accepted"
	}
	if r.Status.Progress != "" {
		s += ", trials " + r.Status.Progress
	}
	if e := r.Status.EstimatedFinishAt; e != nil && !outcome.Finished(r) {
		s += ", estimated finish " + e.UTC().Format("15:04:05 MST")
	}
	return s
}
