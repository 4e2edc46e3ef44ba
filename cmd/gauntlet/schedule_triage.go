package main

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func newScheduleTriageCmd() *cobra.Command {
	var (
		cf     clusterFlags
		accept bool
		entry  benchv1.ScheduleTriage
		point  int32
	)
	cmd := &cobra.Command{
		Use:   "triage SCHEDULE RUN [--accept] [--target T] [--scenario S] [--load-point N] [--figure F] [--note TEXT]",
		Short: "Acknowledge or accept the alerts a BenchmarkSchedule raised at RUN",
		Long: "triage appends an entry to the schedule's spec.triage, as a Git commit would: Acknowledge\n" +
			"(the default: seen, being fixed or noise) clears the alerts that start at RUN; --accept\n" +
			"also makes RUN the next runs' baseline although it Regressed (the new level is the new\n" +
			"normal). --target, --scenario, --load-point and --figure narrow it to one row's figure.\n" +
			"Where Git owns the schedule, the next sync removes the entry: the command prints the\n" +
			"entry to commit there.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := cf.client()
			if err != nil {
				return err
			}
			entry.Run, entry.Action = args[1], benchv1.TriageAcknowledge
			if accept {
				entry.Action = benchv1.TriageAccept
			}
			if cmd.Flags().Changed("load-point") {
				entry.LoadPoint = &point
			}
			key := client.ObjectKey{Namespace: ns, Name: args[0]}
			var s benchv1.BenchmarkSchedule
			added := false
			// Another writer (the operator does not write spec, but kubectl or a second
			// triage may) between the read and the update: read again and retry.
			err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := cl.Get(cmd.Context(), key, &s); err != nil {
					return err
				}
				if slices.ContainsFunc(s.Spec.Triage, func(t benchv1.ScheduleTriage) bool { return sameTriage(t, entry) }) {
					added = false
					return nil
				}
				s.Spec.Triage = append(s.Spec.Triage, entry)
				added = true
				return cl.Update(cmd.Context(), &s)
			})
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("no BenchmarkSchedule %q in namespace %q: %w", args[0], ns, err)
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if added {
				fmt.Fprintf(out, "%s: %s the alerts at %s\n", s.Name, map[bool]string{true: "accepted", false: "acknowledged"}[accept], entry.Run)
			} else {
				fmt.Fprintf(out, "%s: spec.triage already holds this entry\n", s.Name)
			}
			if !slices.ContainsFunc(s.Status.Alerts, func(a benchv1.ScheduleChangePoint) bool { return a.Run == entry.Run }) {
				fmt.Fprintf(out, "no alert of %s starts at %s now (status.alerts): the entry applies when one does\n", s.Name, entry.Run)
			}
			doc, _ := yaml.Marshal([]benchv1.ScheduleTriage{entry})
			fmt.Fprintf(out, "where Git owns %s, add to its spec.triage:\n%s", s.Name, doc)
			return nil
		},
	}
	cf.add(cmd.Flags())
	f := cmd.Flags()
	f.BoolVar(&accept, "accept", false, "accept the new level as the new normal (Accept), not only acknowledge it")
	f.StringVar(&entry.Target, "target", "", "only this target's rows")
	f.StringVar(&entry.Scenario, "scenario", "", "only this scenario's rows")
	f.Int32Var(&point, "load-point", 0, "only this load point's rows (the rate, or the virtual users)")
	f.StringVar(&entry.Figure, "figure", "", "only this figure: p50, p99, cpuPerRequest or capacity")
	f.StringVar(&entry.Note, "note", "", "why, for the record")
	return cmd
}

// sameTriage: an entry with the same run, action and narrowing (the note aside).
func sameTriage(a, b benchv1.ScheduleTriage) bool {
	samePoint := (a.LoadPoint == nil) == (b.LoadPoint == nil) && (a.LoadPoint == nil || *a.LoadPoint == *b.LoadPoint)
	return a.Run == b.Run && a.Action == b.Action && a.Target == b.Target && a.Scenario == b.Scenario && a.Figure == b.Figure && samePoint
}
