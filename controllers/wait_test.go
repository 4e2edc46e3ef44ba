package controllers

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// waitFor polls the run at key through the suite's API server until ok holds (20 s at most).
func waitFor(t *testing.T, key client.ObjectKey, ok func(*benchv1.BenchmarkRun) bool) *benchv1.BenchmarkRun {
	t.Helper()
	return waitOn(t, env.Client, key, 20*time.Second, ok)
}

// waitOn polls the run at key through c until ok holds, failing the test after timeout.
func waitOn(t *testing.T, c client.Client, key client.ObjectKey, timeout time.Duration, ok func(*benchv1.BenchmarkRun) bool) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r := &benchv1.BenchmarkRun{}
		if err := c.Get(context.Background(), key, r); err != nil {
			t.Fatal(err)
		}
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; phase %s, conditions %+v, trials %+v", r.Status.Phase, r.Status.Conditions, r.Status.Trials)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
