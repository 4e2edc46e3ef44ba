package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Without the other operators' CRDs (an API server of its own, without them) the run waits
// with a condition naming each one, and the manager keeps running (no crash loop).
func TestMissingOperatorsAreNamed(t *testing.T) {
	testenv.Long(t)
	bare, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Stop() })
	stop, err := startManager(bare.Config, []string{"default"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "needs-operators", Namespace: "default"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
			Database:  &benchv1.Database{},
			Scenarios: []benchv1.Scenario{{Name: "db", Workload: "db-ping"}},
			Load:      benchv1.Load{Rates: []int32{100}},
		},
	}
	if err := bare.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, bare.Client, client.ObjectKeyFromObject(run), 20*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.FindStatusCondition(r.Status.Conditions, benchv1.ConditionDependenciesReady) != nil
	})
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDependenciesReady)
	if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonMissingDependency {
		t.Fatalf("condition %+v", c)
	}
	for _, want := range []string{"CloudNativePG (Cluster postgresql.cnpg.io/v1)", "CloudNativePG (Pooler", "k6-operator (TestRun k6.io/v1alpha1)"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q does not name %s", c.Message, want)
		}
	}
	// A run creates no prometheus-operator object: its CRDs are not required.
	if strings.Contains(c.Message, "prometheus-operator") {
		t.Errorf("message %q requires prometheus-operator, which no run uses", c.Message)
	}
	if got.Status.Phase != benchv1.PhasePending || got.Status.StartedAt != nil {
		t.Errorf("phase %s, startedAt %v: want Pending with nothing created while waiting", got.Status.Phase, got.Status.StartedAt)
	}
	// The manager is still up, not crash-looping: stopping it reports no error.
	if err := stop(); err != nil {
		t.Errorf("manager: %v", err)
	}
}
