package main

import (
	"context"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

func TestPickDocument(t *testing.T) {
	docs := []validation.Document{{Meta: "a", Run: &benchv1.BenchmarkRun{}}, {Meta: "b", Run: &benchv1.BenchmarkRun{}}}
	if d, err := pick(docs, "b"); err != nil || d.Meta != "b" {
		t.Fatalf("by name: %+v %v", d, err)
	}
	if _, err := pick(docs, ""); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Fatalf("several without --name: %v", err)
	}
	if _, err := pick(docs, "c"); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("unknown name: %v", err)
	}
	if d, err := pick(docs[:1], ""); err != nil || d.Meta != "a" {
		t.Fatalf("single: %v", err)
	}
}

// --allow-unsafe is in `gauntlet run --help`, saying what it lets through.
func TestRunHelpListsAllowUnsafe(t *testing.T) {
	cmd := newRunCmd()
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--allow-unsafe", "archive_command", "LD_PRELOAD", "NODE_OPTIONS", "allow-list", "127.0.0.1", "gauntlet-target"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run --help does not mention %q:\n%s", want, out.String())
		}
	}
}

// Command-line overrides go through the schema again: they cannot make a spec it refuses.
func TestOverridesAreRevalidated(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Name = "r"
	run.Spec = benchv1.BenchmarkRunSpec{
		Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load:      benchv1.Load{Rates: []int32{100}, Duration: "30s", Repetitions: 1},
	}
	if err := revalidate(context.Background(), run, "duration=30s"); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	run.Spec.Load.Duration = "1.5s" // what time.Duration.String() writes, and the pattern refuses
	err := revalidate(context.Background(), run, "duration=1.5s")
	if err == nil || !strings.Contains(err.Error(), "spec.load.duration") || !strings.Contains(err.Error(), "duration=1.5s") {
		t.Fatalf("err = %v, want one naming spec.load.duration and the override", err)
	}
}
