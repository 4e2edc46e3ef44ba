package controllers

import (
	"context"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestAcceptedRecordsGenerationAndCondition(t *testing.T) {
	ctx := context.Background()
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "accept", Namespace: "default"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}, {Name: "node", Preset: "node-fastify"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{100}},
		},
	}
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitFor(t, client.ObjectKeyFromObject(run), func(r *benchv1.BenchmarkRun) bool {
		return r.Status.ObservedGeneration == r.Generation && meta.IsStatusConditionTrue(r.Status.Conditions, ConditionAccepted)
	})
	if got.Status.Phase != benchv1.PhasePending {
		t.Errorf("phase = %q, want Pending", got.Status.Phase)
	}
	if got.Status.TargetNames != "go,node" {
		t.Errorf("targetNames = %q", got.Status.TargetNames)
	}
	// Ready must be present and False from the start, or kstatus would assume it True.
	if c := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Ready condition = %+v, want False", c)
	}

	// A new generation (labels do not bump it; a spec change does) is observed again.
	got.Spec.Load.Repetitions = 5
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitFor(t, client.ObjectKeyFromObject(run), func(r *benchv1.BenchmarkRun) bool {
		c := meta.FindStatusCondition(r.Status.Conditions, ConditionAccepted)
		return r.Generation == 2 && r.Status.ObservedGeneration == 2 && c != nil && c.ObservedGeneration == 2
	})

	// The step is reported as an event on the object.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var events eventsv1.EventList
		if err := env.Client.List(ctx, &events, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Regarding.Name == run.Name && e.Reason == ReasonSpecAccepted {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event for %s", ReasonSpecAccepted, run.Name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitFor(t *testing.T, key client.ObjectKey, ok func(*benchv1.BenchmarkRun) bool) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := &benchv1.BenchmarkRun{}
		if err := env.Client.Get(context.Background(), key, r); err != nil {
			t.Fatal(err)
		}
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; status is %+v", r.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
