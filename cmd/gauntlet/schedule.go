package main

import (
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spf13/cobra"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func init() { subcommands = append(subcommands, newScheduleCmd) }

func newScheduleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Act on a cluster BenchmarkSchedule",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newScheduleTriggerCmd(), newScheduleTriageCmd())
	return cmd
}

func newScheduleTriggerCmd() *cobra.Command {
	var (
		cf    clusterFlags
		value string
	)
	cmd := &cobra.Command{
		Use:   "trigger SCHEDULE [-n NAMESPACE] [--value V]",
		Short: "Ask a BenchmarkSchedule for one run now",
		Long: "trigger sets the schedule's " + benchv1.AnnotationRunNow + " annotation to a new value (the time,\n" +
			"or --value), as kubectl annotate --overwrite or a Git commit would: the operator starts\n" +
			"one run for it, annotated " + benchv1.AnnotationTrigger + "=" + benchv1.TriggerManual + ". Not while the schedule is suspended,\n" +
			"and under concurrencyPolicy Forbid once the run in progress has finished (Replace\n" +
			"replaces it). A value the schedule has already acted on starts nothing.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := cf.client()
			if err != nil {
				return err
			}
			if value == "" {
				value = time.Now().UTC().Format(time.RFC3339Nano)
			}
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{benchv1.AnnotationRunNow: value}}})
			s := &benchv1.BenchmarkSchedule{}
			s.Name, s.Namespace = args[0], ns
			if err := cl.Patch(cmd.Context(), s, client.RawPatch(types.MergePatchType, patch)); err != nil {
				if apierrors.IsNotFound(err) {
					return fmt.Errorf("no BenchmarkSchedule %q in namespace %q: %w", args[0], ns, err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: run requested (%s=%s)\n", s.Name, benchv1.AnnotationRunNow, value)
			if s.Spec.Suspend {
				fmt.Fprintf(cmd.OutOrStdout(), "%s is suspended: the run starts when spec.suspend is false\n", s.Name)
			}
			return nil
		},
	}
	cf.add(cmd.Flags())
	cmd.Flags().StringVar(&value, "value", "", "the annotation's value (default: the time now, RFC 3339)")
	return cmd
}
