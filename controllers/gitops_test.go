package controllers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// gitOpsCase is a BenchmarkRun as the reconciler leaves it after a pass, and the health
// Flux (kstatus) and Argo CD (charts/gauntlet/argocd-health.lua) must read from it.
type gitOpsCase struct {
	name    string
	phase   benchv1.Phase
	stale   bool // the spec changed after the last pass (generation ahead of observedGeneration)
	fail    func(r *benchv1.BenchmarkRun)
	kstatus status.Status
	argo    string // Argo CD health status, asserted by test/argocd on the same files
}

func gitOpsCases() []gitOpsCase {
	progressing := func(p benchv1.Phase) gitOpsCase {
		return gitOpsCase{name: "phase-" + string(p), phase: p, kstatus: status.InProgressStatus, argo: "Progressing"}
	}
	return []gitOpsCase{
		progressing(benchv1.PhasePending), progressing(benchv1.PhaseProvisioning), progressing(benchv1.PhaseVerifying),
		progressing(benchv1.PhaseRunning), progressing(benchv1.PhaseAnalyzing),
		{name: "phase-Succeeded", phase: benchv1.PhaseSucceeded, kstatus: status.CurrentStatus, argo: "Healthy"},
		{name: "phase-Failed", phase: benchv1.PhaseFailed, kstatus: status.FailedStatus, argo: "Degraded",
			fail: func(r *benchv1.BenchmarkRun) {
				setCondition(r, benchv1.ConditionTargetsReady, metav1.ConditionFalse, benchv1.ReasonTargetsTimeout,
					"target go: no available replica after 10m0s")
			}},
		// A failed verification ends the run Failed after the others were measured.
		{name: "failed-verification", phase: benchv1.PhaseFailed, kstatus: status.FailedStatus, argo: "Degraded",
			fail: func(r *benchv1.BenchmarkRun) {
				setCondition(r, benchv1.ConditionTargetsVerified, metav1.ConditionFalse, benchv1.ReasonVerifyFailed,
					"node: /db/ping: status 500")
			}},
		// Every trial ran, but no row is valid: nothing a pipeline can stand behind.
		{name: "no-valid-result", phase: benchv1.PhaseSucceeded, kstatus: status.FailedStatus, argo: "Degraded",
			fail: func(r *benchv1.BenchmarkRun) {
				setCondition(r, benchv1.ConditionConclusive, metav1.ConditionFalse, benchv1.ReasonNoValidResult,
					"0 of 36 rows valid; invalid rows' flags: GeneratorBound 30, MostlyFailed 6")
			}},
		// An invalid row could beat the headline's.
		{name: "headline-inconclusive", phase: benchv1.PhaseSucceeded, kstatus: status.FailedStatus, argo: "Degraded",
			fail: func(r *benchv1.BenchmarkRun) {
				setCondition(r, benchv1.ConditionConclusive, metav1.ConditionFalse, benchv1.ReasonHeadlineInconclusive,
					"inconclusive: node's row is GeneratorBound; 1 of 2 rows valid; invalid rows' flags: GeneratorBound 1")
			}},
		// A finished run whose spec was edited has not been looked at again yet.
		{name: "succeeded-stale-generation", phase: benchv1.PhaseSucceeded, stale: true, kstatus: status.InProgressStatus, argo: "Progressing"},
	}
}

// gitOpsRun builds the object: the phase, the step condition a failure records, and the
// GitOps conditions and observedGeneration exactly as the reconciler's deferred patch sets
// them (engine.GitOps), with fixed times so the files are stable.
func gitOpsRun(c gitOpsCase) *unstructured.Unstructured {
	run := &benchv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Name: "seed-001", Namespace: "bench", Generation: 1},
		Spec: benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{1000}},
		},
	}
	run.Status.Phase = c.phase
	run.Status.Progress = "0/1"
	if c.phase == benchv1.PhaseSucceeded {
		run.Status.Progress, run.Status.Headline = "1/1", "best p99: go 1.9ms @ 1000/s"
	}
	if c.fail != nil {
		c.fail(run)
	}
	run.Status.ObservedGeneration = run.Generation
	engine.GitOps(run)
	if c.stale {
		run.Generation = 2
	}
	at := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	for i := range run.Status.Conditions {
		run.Status.Conditions[i].LastTransitionTime = at
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// kstatus, the library Flux's health checks use, reads each case as it must.
func TestKstatusReadsEveryPhase(t *testing.T) {
	testenv.Long(t)
	for _, c := range gitOpsCases() {
		res, err := status.Compute(gitOpsRun(c))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Status != c.kstatus {
			t.Errorf("%s: kstatus %s (%s), want %s", c.name, res.Status, res.Message, c.kstatus)
		}
	}
}

// test/argocd (a module of its own: Argo CD's dependencies pin another Kubernetes) runs
// Argo CD's Lua health code on these files; they must be what the reconciler writes today.
// GAUNTLET_UPDATE_FIXTURES=1 rewrites them.
func TestArgoCDFixturesAreCurrent(t *testing.T) {
	testenv.Long(t)
	dir := filepath.Join(testenv.Root(), "test", "argocd", "testdata")
	for _, c := range gitOpsCases() {
		obj := gitOpsRun(c)
		obj.SetAnnotations(map[string]string{"test.gauntlet.dev/argocd-health": c.argo})
		want, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, c.name+".yaml")
		if os.Getenv("GAUNTLET_UPDATE_FIXTURES") == "1" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale or missing (%v): run GAUNTLET_UPDATE_FIXTURES=1 go test ./controllers -run TestArgoCDFixturesAreCurrent", file, err)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(entries) != len(gitOpsCases()) {
		t.Errorf("%s holds %d files, want %d: remove the stale ones", dir, len(entries), len(gitOpsCases()))
	}
}
