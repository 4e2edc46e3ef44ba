package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/outcome"
	"github.com/gauntlet-bench/gauntlet/internal/report"
)

func init() { subcommands = append(subcommands, newStatusCmd) }

// runStatus is what status and wait print with -o json|yaml: the run's state and, once it
// has finished, its outcome and the exit status wait gives it.
type runStatus struct {
	Name              string              `json:"name"`
	Namespace         string              `json:"namespace"`
	Phase             benchv1.Phase       `json:"phase,omitempty"`
	Progress          string              `json:"progress,omitempty"`
	Finished          bool                `json:"finished"`
	Outcome           string              `json:"outcome,omitempty"`
	ExitCode          *int                `json:"exitCode,omitempty"`
	Reason            string              `json:"reason,omitempty"`
	StartedAt         *metav1.Time        `json:"startedAt,omitempty"`
	EstimatedFinishAt *metav1.Time        `json:"estimatedFinishAt,omitempty"`
	FinishedAt        *metav1.Time        `json:"finishedAt,omitempty"`
	Headline          string              `json:"headline,omitempty"`
	Capacity          string              `json:"capacity,omitempty"`
	Conditions        []metav1.Condition  `json:"conditions,omitempty"`
	Results           []benchv1.ResultRow `json:"results,omitempty"`
}

func statusOf(run *benchv1.BenchmarkRun) runStatus {
	st := run.Status
	s := runStatus{Name: run.Name, Namespace: run.Namespace, Phase: st.Phase, Progress: st.Progress,
		Finished: outcome.Finished(run), StartedAt: st.StartedAt, EstimatedFinishAt: st.EstimatedFinishAt,
		FinishedAt: st.FinishedAt, Headline: st.Headline, Capacity: st.Capacity, Conditions: st.Conditions, Results: st.Results}
	if s.Finished {
		code, why := outcome.Of(run)
		n := int(code)
		s.Outcome, s.ExitCode, s.Reason = code.String(), &n, why
	}
	return s
}

// writeStatus is status's text: a summary line, the conditions, the results table.
func writeStatus(w io.Writer, run *benchv1.BenchmarkRun, now time.Time) error {
	s := statusOf(run)
	phase := string(s.Phase)
	if phase == "" {
		phase = "not yet accepted"
	}
	fmt.Fprintf(w, "%s (namespace %s): %s", s.Name, s.Namespace, phase)
	if s.Progress != "" {
		fmt.Fprintf(w, ", trials %s", s.Progress)
	}
	if e := s.EstimatedFinishAt; e != nil && !s.Finished {
		fmt.Fprintf(w, ", estimated finish %s (in %s)", e.UTC().Format("15:04:05 MST"), max(0, e.Sub(now)).Round(time.Second))
	}
	fmt.Fprintln(w)
	if s.Headline != "" {
		fmt.Fprintf(w, "result: %s\n", s.Headline)
	}
	if s.Capacity != "" {
		fmt.Fprintf(w, "capacity: %s\n", s.Capacity)
	}
	if s.Finished {
		fmt.Fprintf(w, "outcome: %s (exit status %d)", s.Outcome, *s.ExitCode)
		if s.Reason != "" {
			fmt.Fprintf(w, ": %s", s.Reason)
		}
		fmt.Fprintln(w)
	}
	if len(s.Conditions) > 0 {
		fmt.Fprintln(w, "\nconditions:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range s.Conditions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Results) > 0 {
		fmt.Fprintln(w)
		return report.WriteTable(w, run)
	}
	return nil
}

func newStatusCmd() *cobra.Command {
	var (
		cf     clusterFlags
		output string
	)
	cmd := &cobra.Command{
		Use:   "status RUN [-n NAMESPACE] [-o json|yaml]",
		Short: "Show a cluster run: phase, trials, estimated finish, conditions, results table",
		Long: "status reads the BenchmarkRun RUN through your kubeconfig and prints its phase, trials\n" +
			"done, estimated finish, headline, conditions and the results table (the one run --local\n" +
			"prints). -o json|yaml prints the same as data, with the outcome and the exit status\n" +
			"`gauntlet wait` gives a finished run. Exit status 0 whenever the run was read.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cl, ns, err := cf.client()
			if err != nil {
				return err
			}
			run, err := getRun(cmd.Context(), cl, ns, args[0])
			if err != nil {
				return err
			}
			if output != "" {
				return printData(cmd.OutOrStdout(), output, statusOf(run))
			}
			return writeStatus(cmd.OutOrStdout(), run, time.Now())
		},
	}
	cf.add(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml: print the status as data")
	return cmd
}
