package controllers

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Cleanup policy Always deletes what a failed run created (OnSuccess would keep it), and
// ttlSecondsAfterFinished then deletes the run itself.
func TestCleanupAlwaysThenTTL(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := pingRun("cleanup-ttl")
	run.Spec.Cleanup = benchv1.Cleanup{Policy: "Always", TTLSecondsAfterFinished: ptr.To[int32](3)}
	fakes.script(run.Name, &k6Outcome{exitCode: 99})
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 30*time.Second, finished)
	if got.Status.Phase != benchv1.PhaseFailed {
		t.Fatalf("phase %s", got.Status.Phase)
	}
	waitGone(t, got) // before the TTL: the policy's doing
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), &benchv1.BenchmarkRun{}); err != nil {
		t.Fatalf("the run went before its TTL: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), &benchv1.BenchmarkRun{})
		if apierrors.IsNotFound(err) {
			if since := time.Since(got.Status.FinishedAt.Time); since < 3*time.Second {
				t.Errorf("deleted %v after finishing, before the 3 s TTL", since)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run outlived its TTL: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
