package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func TestAcceptedRecordsGenerationAndCondition(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: "accept", Namespace: "default"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}, {Name: "node", Preset: "node-fastify"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{100}},
		},
	}
	hold := make(chan struct{})
	fakes.script(run.Name, &k6Outcome{hold: hold})
	t.Cleanup(func() { close(hold); _ = env.Client.Delete(ctx, run) })
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitFor(t, client.ObjectKeyFromObject(run), func(r *benchv1.BenchmarkRun) bool {
		return r.Status.ObservedGeneration == r.Generation && meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionAccepted) &&
			r.Status.StartedAt != nil
	})
	if got.Status.TargetNames != "go,node" || len(got.Status.Trials) != 6 { // 2 targets x 3 repetitions (the default)
		t.Errorf("targetNames = %q, %d trials", got.Status.TargetNames, len(got.Status.Trials))
	}
	// Ready must be present and False from the start, or kstatus would assume it True.
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Ready condition = %+v, want False", c)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionReconciling) {
		t.Errorf("Reconciling should be True while the run progresses: %+v", got.Status.Conditions)
	}

	// Once objects exist (startedAt), the API server refuses spec changes.
	// The controller writes the object meanwhile (status, finalizer): retry conflicts on a fresh
	// copy, so what is judged is the spec change itself.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fresh := &benchv1.BenchmarkRun{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), fresh); err != nil {
			return err
		}
		fresh.Spec.Load.Repetitions = 5
		return env.Client.Update(ctx, fresh)
	})
	if err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("spec update after start: %v, want refused as immutable", err)
	}

	// The step is reported as an event on the object.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var events eventsv1.EventList
		if err := env.Client.List(ctx, &events, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Regarding.Name == run.Name && e.Reason == benchv1.ReasonSpecAccepted {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event for %s", benchv1.ReasonSpecAccepted, run.Name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
