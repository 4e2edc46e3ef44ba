package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

func init() { subcommands = append(subcommands, newFitCmd) }

// fitOptions are the flags of gauntlet fit, applied in this order.
type fitOptions struct {
	scale       float64
	overrides   transform.Overrides
	cpu, memory string
	workers     int32
}

func newFitCmd() *cobra.Command {
	var (
		file, name string
		o          fitOptions
	)
	cmd := &cobra.Command{
		Use:   "fit -f FILE [--name N] [--scale F] [--warmup D] [--duration D] [--repetitions N] [--cpu Q] [--memory Q] [--workers N]",
		Short: "Print a BenchmarkRun shortened and scaled down for a small cluster, for kubectl apply",
		Long: "fit reads one BenchmarkRun (validated as the API server would), shortens its load as\n" +
			"run --local does (--scale, --warmup, --duration, --repetitions), caps every target's and\n" +
			"load generator runner's CPU and memory (--cpu, --memory) and every target's workers\n" +
			"(--workers), and prints the result as YAML.\n" +
			"What changed is recorded in the annotations gauntlet.dev/scale, gauntlet.dev/overrides\n" +
			"and gauntlet.dev/resources, so a figure measured from it is never taken for the seed's:\n" +
			"  gauntlet fit -f config/samples/seed-000-smart-home.yaml --scale 0.05 --cpu 500m | kubectl apply -f -",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			run, err := loadRun(cmd.Context(), cmd, file, name)
			if err != nil {
				return err
			}
			if err := fitRun(run, o); err != nil {
				return err
			}
			changed := fmt.Sprintf("%s=%s %s=%s %s=%s", transform.ScaleAnnotation, run.Annotations[transform.ScaleAnnotation],
				transform.OverridesAnnotation, run.Annotations[transform.OverridesAnnotation],
				transform.ResourcesAnnotation, run.Annotations[transform.ResourcesAnnotation])
			if err := revalidate(cmd.Context(), run, changed); err != nil {
				return err
			}
			run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
			run.Status = benchv1.BenchmarkRunStatus{}
			out, err := yaml.Marshal(run)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "file with one or more BenchmarkRun documents (YAML or JSON)")
	f.StringVar(&name, "name", "", "the document to fit when FILE holds several (its metadata.name)")
	f.Float64Var(&o.scale, "scale", 1, "multiply every rate or connection load point by this factor, e.g. 0.05")
	f.DurationVar(&o.overrides.Warmup, "warmup", 0, "replace spec.load.warmup")
	f.DurationVar(&o.overrides.Duration, "duration", 0, "replace spec.load.duration")
	f.Int32Var(&o.overrides.Repetitions, "repetitions", 0, "replace spec.load.repetitions")
	f.StringVar(&o.cpu, "cpu", "", "the most CPU any target or runner container gets, e.g. 500m (requests equal limits)")
	f.StringVar(&o.memory, "memory", "", "the most memory any target or runner container gets, e.g. 512Mi")
	f.Int32Var(&o.workers, "workers", 0, "the most workers (processes, GOMAXPROCS) any target runs, e.g. 1 under a CPU cap below one core")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

// fitRun applies o to run and records each change in its annotation.
func fitRun(run *benchv1.BenchmarkRun, o fitOptions) error {
	quantity := func(flag, v string) (*resource.Quantity, error) {
		if v == "" {
			return nil, nil
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a quantity such as 500m or 512Mi", flag, v)
		}
		return &q, nil
	}
	cpu, err := quantity("--cpu", o.cpu)
	if err != nil {
		return err
	}
	memory, err := quantity("--memory", o.memory)
	if err != nil {
		return err
	}
	notes := map[string]string{}
	if notes[transform.OverridesAnnotation], err = o.overrides.Apply(&run.Spec); err != nil {
		return err
	}
	if err := transform.ScaleLoad(&run.Spec, o.scale); err != nil {
		return err
	}
	if o.scale != 1 {
		notes[transform.ScaleAnnotation] = transform.FormatScale(o.scale)
	}
	if notes[transform.ResourcesAnnotation], err = transform.CapResources(&run.Spec, cpu, memory); err != nil {
		return err
	}
	workers, err := transform.CapWorkers(&run.Spec, o.workers)
	if err != nil {
		return err
	}
	if workers != "" {
		notes[transform.ResourcesAnnotation] = strings.Trim(notes[transform.ResourcesAnnotation]+","+workers, ",")
	}
	changed := false
	for k, v := range notes {
		if v == "" {
			continue
		}
		if run.Annotations == nil {
			run.Annotations = map[string]string{}
		}
		run.Annotations[k], changed = v, true
	}
	if !changed {
		return errors.New("nothing to fit: give --scale, --warmup, --duration, --repetitions, --cpu, --memory or --workers")
	}
	return nil
}
