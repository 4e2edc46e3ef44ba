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

// A deleted or finished run's checks stop at once and give their slots back: they used to
// run to their deadline, holding the cap every other run's verifications wait on.
func TestForgottenRunsFreeTheirSlots(t *testing.T) {
	var v verifications
	hold := func(ctx context.Context) (verify.Report, error) {
		<-ctx.Done() // a target that stalls every check
		return verify.Report{}, nil
	}
	t0 := time.Now()
	stalled := v.start(verifyKey("run-a", "go"), t0, time.Hour, 1, hold)
	if stalled == nil {
		t.Fatal("no slot for the first job")
	}
	v.forgetRun("run-a")
	select {
	case <-stalled.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the forgotten run's check still runs: it holds its slot until its deadline")
	}
	if next := v.start(verifyKey("run-b", "go"), t0, time.Hour, 1, hold); next == nil {
		t.Error("another run's check found no slot after the first run was forgotten")
	}
}
