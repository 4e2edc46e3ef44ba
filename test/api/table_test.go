package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// restClient talks to the gauntlet.dev/v1alpha1 API directly, for what the typed client
// does not expose (server-side tables).
func restClient(t *testing.T) *rest.RESTClient {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.GroupVersion = &benchv1.GroupVersion
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createBase(t *testing.T, ns string) *benchv1.BenchmarkRun {
	t.Helper()
	run := &benchv1.BenchmarkRun{}
	if err := yaml.UnmarshalStrict([]byte(base), run); err != nil {
		t.Fatal(err)
	}
	run.Namespace = ns
	if err := env.Client.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// kubectl get shows phase, readiness, progress, the result's summary, whether the run
// regressed against its baseline, and age: the server builds that table from the CRD's
// printer columns. Targets, capacities, the comparison's verdict, the ETA and the whole
// headline (up to 2,048, 512, 256 and 512 characters) are priority 1, shown by -o wide
// only, so the default table fits a terminal.
func TestPrinterColumns(t *testing.T) {
	testenv.Long(t)
	ns := newNamespace(t)
	run := createBase(t, ns)
	eta := metav1.NewTime(time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC))
	run.Status = benchv1.BenchmarkRunStatus{
		Phase: benchv1.PhaseRunning, Progress: "7/24", TargetNames: "go,mine",
		Headline: "inconclusive: mine's row is GeneratorBound (ping @ 1000: its p99 1.2ms is below the best valid row's 1.9ms)",
		Summary:  "inconclusive: mine's row is GeneratorBound", Capacity: "go/ping 480/s, mine/ping >=1200/s",
		EstimatedFinishAt: &eta,
		Verdict:           "mine/ping@1000 vs go: Slower +20.3% [+15.1, +26.0] (1 Slower)",
		Conditions: []metav1.Condition{{Type: benchv1.ConditionRegressed, Status: metav1.ConditionTrue, Reason: "Slower",
			Message: "slower: go/ping@1000 +20.3%", LastTransitionTime: metav1.Now()},
			{Type: benchv1.ConditionReady, Status: metav1.ConditionFalse, Reason: "Running",
				Message: "7/24 trials", LastTransitionTime: metav1.Now()}},
	}
	if err := env.Client.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}

	raw, err := restClient(t).Get().Namespace(ns).Resource("benchmarkruns").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var names, wide []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
		if c.Priority > 0 {
			wide = append(wide, c.Name)
		}
	}
	wantCols := []string{"Name", "Phase", "Ready", "Progress", "Targets", "Result", "Capacity", "Regressed", "Verdict", "ETA", "Headline", "Age"}
	if fmt.Sprint(names) != fmt.Sprint(wantCols) {
		t.Fatalf("columns = %v, want %v", names, wantCols)
	}
	if fmt.Sprint(wide) != "[Targets Capacity Verdict ETA Headline]" {
		t.Errorf("columns shown only by -o wide = %v, want [Targets Capacity Verdict ETA Headline]", wide)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("want one row, got %d", len(table.Rows))
	}
	cells := table.Rows[0].Cells
	want := []any{"base", "Running", "False", "7/24", "go,mine", "inconclusive: mine's row is GeneratorBound", "go/ping 480/s, mine/ping >=1200/s", "True",
		"mine/ping@1000 vs go: Slower +20.3% [+15.1, +26.0] (1 Slower)", "2026-11-28T09:30:00Z",
		"inconclusive: mine's row is GeneratorBound (ping @ 1000: its p99 1.2ms is below the best valid row's 1.9ms)"}
	for i, w := range want {
		if cells[i] != w {
			t.Errorf("cell %s = %v, want %v", wantCols[i], cells[i], w)
		}
	}
}

// Short names br and bench resolve through discovery, as kubectl uses them.
func TestShortNames(t *testing.T) {
	testenv.Long(t)
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.ServerResourcesForGroupVersion("gauntlet.dev/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "benchmarkruns" {
			if fmt.Sprint(r.ShortNames) != "[br bench]" {
				t.Fatalf("short names = %v", r.ShortNames)
			}
			return
		}
	}
	t.Fatal("benchmarkruns not served")
}

// Before a run starts its spec may change; once status.startedAt is set it may not.
func TestSpecImmutableOnceStarted(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := createBase(t, newNamespace(t))

	run.Spec.Load.Repetitions = 5
	if err := env.Client.Update(ctx, run); err != nil {
		t.Fatalf("a spec change before the start was refused: %v", err)
	}
	now := metav1.Now()
	run.Status.StartedAt = &now
	run.Status.Phase = benchv1.PhaseProvisioning
	if err := env.Client.Status().Update(ctx, run); err != nil {
		t.Fatal(err)
	}
	run.Spec.Load.Repetitions = 7
	err := env.Client.Update(ctx, run)
	if err == nil {
		t.Fatal("a spec change after the start was accepted")
	}
	if want := "spec is immutable once the run has started"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	// Metadata stays mutable: labels are how users organise runs.
	run.Spec.Load.Repetitions = 5
	run.Labels = map[string]string{"team": "perf"}
	if err := env.Client.Update(ctx, run); err != nil {
		t.Fatalf("a label change after the start was refused: %v", err)
	}
}
