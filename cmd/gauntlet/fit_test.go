package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

// fitSample runs gauntlet fit on a shipped sample and decodes what it prints.
func fitSample(t *testing.T, args ...string) (*benchv1.BenchmarkRun, error) {
	t.Helper()
	cmd := newFitCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		return nil, err
	}
	var run benchv1.BenchmarkRun
	if err := yaml.UnmarshalStrict(out.Bytes(), &run); err != nil {
		t.Fatalf("fit printed what does not decode as a BenchmarkRun: %v\n%s", err, out.String())
	}
	return &run, nil
}

func TestFitShrinksASeedAndRecordsIt(t *testing.T) {
	file := filepath.Join("..", "..", "config", "samples", "seed-001-rest-api.yaml")
	run, err := fitSample(t, "-f", file, "--name", "seed-001-keepalive-on", "--scale", "0.1",
		"--duration", "2s", "--repetitions", "1", "--cpu", "250m", "--memory", "768Mi")
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Spec.Load.Connections; len(got) != 2 || got[0] != 10 || got[1] != 100 {
		t.Errorf("connections %v, want [10 100] (100 and 1000 scaled by 0.1)", got)
	}
	if run.Spec.Load.Duration != "2s" || run.Spec.Load.Repetitions != 1 || run.Spec.Load.Warmup != "5s" {
		t.Errorf("load %+v: want duration 2s, 1 repetition, the seed's 5s warmup kept", run.Spec.Load)
	}
	for _, tg := range run.Spec.Targets {
		if tg.Resources.CPU.String() != "250m" {
			t.Errorf("target %s cpu %s, want 250m", tg.Name, tg.Resources.CPU)
		}
		// nginx asks for 1Gi, under the cap only when the cap is higher: 768Mi lowers every one.
		if tg.Resources.Memory.String() != "768Mi" {
			t.Errorf("target %s memory %s, want 768Mi", tg.Name, tg.Resources.Memory)
		}
	}
	if run.Spec.LoadGenerator.Resources.CPU.String() != "250m" {
		t.Errorf("runner cpu %v, want 250m (the schema's default 1 is over the cap)", run.Spec.LoadGenerator.Resources.CPU)
	}
	want := map[string]string{
		transform.ScaleAnnotation:     "0.1",
		transform.OverridesAnnotation: "duration=2s,repetitions=1",
		transform.ResourcesAnnotation: "cpu<=250m,memory<=768Mi",
	}
	for k, v := range want {
		if run.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, run.Annotations[k], v)
		}
	}
	if run.Kind != "BenchmarkRun" || run.APIVersion != benchv1.GroupVersion.String() {
		t.Errorf("printed %s %s: kubectl apply needs apiVersion and kind", run.APIVersion, run.Kind)
	}
}

func TestFitLeavesSmallerResourcesAlone(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "local-quickstart.yaml")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	run, err := fitSample(t, "-f", file, "--cpu", "64")
	if err == nil {
		t.Fatalf("a cap above every container fitted nothing, yet no error: %v", run.Annotations)
	}
	if !strings.Contains(err.Error(), "nothing to fit") {
		t.Errorf("error %q, want it to say nothing was fitted", err)
	}
	after, _ := os.ReadFile(file)
	if !bytes.Equal(before, after) {
		t.Error("fit wrote to its input file")
	}
}

func TestFitRefusesBadFlagsNamingThem(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "local-quickstart.yaml")
	for flag, args := range map[string][]string{
		"--cpu":      {"--cpu", "lots"},
		"--memory":   {"--memory", "-1Gi"},
		"--scale":    {"--scale", "-2"},
		"--duration": {"--duration", "500ms"},
		"--workers":  {"--workers", "-1"},
	} {
		_, err := fitSample(t, append([]string{"-f", file}, args...)...)
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("fit %v: error %v, want one naming %s", args, err, flag)
		}
	}
}

// --workers lowers the seed's eight workers to the cap and records it beside the CPU cap;
// a target already at or under the cap keeps its own.
func TestFitCapsWorkers(t *testing.T) {
	file := filepath.Join("..", "..", "config", "samples", "seed-000-smart-home.yaml")
	run, err := fitSample(t, "-f", file, "--cpu", "200m", "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range run.Spec.Targets {
		if tg.Workers != 2 {
			t.Errorf("target %s workers %d, want 2 (the seed's 8 capped)", tg.Name, tg.Workers)
		}
	}
	if got := run.Annotations[transform.ResourcesAnnotation]; got != "cpu<=200m,workers<=2" {
		t.Errorf("%s = %q, want cpu<=200m,workers<=2", transform.ResourcesAnnotation, got)
	}
	run, err = fitSample(t, "-f", file, "--workers", "16")
	if err == nil || !strings.Contains(err.Error(), "nothing to fit") {
		t.Errorf("a workers cap above the seed's 8: %v, %v; want nothing to fit", run, err)
	}
}
