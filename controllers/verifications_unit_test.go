package controllers

import (
	"context"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// The cap on verifications at once holds across runs: past it a job is not started (nil),
// and once one ends the next starts, its deadline counted from its own start.
func TestVerificationsWaitForASlot(t *testing.T) {
	var v verifications
	release := make(chan struct{})
	hold := func(ctx context.Context) (verify.Report, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return verify.Report{}, nil
	}
	t0 := time.Now()
	first := v.start("run-a/go", t0, time.Minute, 1, hold)
	if first == nil {
		t.Fatal("the first job found no slot")
	}
	if again := v.start("run-a/go", t0, time.Minute, 1, hold); again != first {
		t.Error("asking again for a running job started another")
	}
	if second := v.start("run-b/go", t0, time.Minute, 1, hold); second != nil {
		t.Fatal("a second run's job started past the cap of 1")
	}
	close(release)
	<-first.done
	t1 := t0.Add(30 * time.Second)
	second := v.start("run-b/go", t1, time.Minute, 1, hold)
	if second == nil || !second.started.Equal(t1) {
		t.Fatalf("after the first ended: %+v, want a job started at %v", second, t1)
	}
	<-second.done
	if third := v.start("run-c/go", t1, time.Minute, 0, hold); third == nil {
		t.Error("limit 0 must be no cap")
	}
}
