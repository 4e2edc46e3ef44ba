package controllers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// The cap on verifications at once holds across runs: past it a job is not started, and
// once one ends the next starts, its deadline counted from its own start.
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
	one := verifyLimits{total: 1}
	t0 := time.Now()
	first, err := v.start("run-a/go", "ns-a", t0, time.Minute, one, hold)
	if first == nil || err != nil {
		t.Fatalf("the first job found no slot: %v", err)
	}
	if again, _ := v.start("run-a/go", "ns-a", t0, time.Minute, one, hold); again != first {
		t.Error("asking again for a running job started another")
	}
	if second, err := v.start("run-b/go", "ns-b", t0, time.Minute, one, hold); second != nil || !errors.Is(err, errNoVerificationSlot) {
		t.Fatalf("a second run's job past the cap of 1: %v, %v; want none, %v", second, err, errNoVerificationSlot)
	}
	close(release)
	<-first.done
	t1 := t0.Add(30 * time.Second)
	second, _ := v.start("run-b/go", "ns-b", t1, time.Minute, one, hold)
	if second == nil || !second.started.Equal(t1) {
		t.Fatalf("after the first ended: %+v, want a job started at %v", second, t1)
	}
	<-second.done
	if third, _ := v.start("run-c/go", "ns-c", t1, time.Minute, verifyLimits{}, hold); third == nil {
		t.Error("limit 0 must be no cap")
	}
}

// One namespace's many runs against stalling targets take at most its share of the
// operator's slots: another namespace's target starts its checks at once. Without the
// per-namespace cap (the old behaviour, perNamespace 0) the first namespace's runs took
// all 8 slots and the other waited up to a check's deadline.
func TestOneNamespaceCannotTakeEverySlot(t *testing.T) {
	var v verifications
	stall := func(ctx context.Context) (verify.Report, error) {
		<-ctx.Done()
		return verify.Report{}, nil
	}
	lim := verifyLimits{total: 8, perNamespace: 4}
	t0 := time.Now()
	started := 0
	for i := range 20 { // namespace a's runs, each with a target that stalls every check
		j, err := v.start(verifyKey(types.UID(fmt.Sprintf("a-%d", i)), "go"), "tenant-a", t0, time.Hour, lim, stall)
		switch {
		case j != nil:
			started++
			t.Cleanup(func() { v.forgetRun(types.UID(fmt.Sprintf("a-%d", i))) })
		case !errors.Is(err, errNoNamespaceSlot):
			t.Fatalf("tenant-a's run %d refused with %v, want %v", i, err, errNoNamespaceSlot)
		}
	}
	if started != 4 {
		t.Errorf("tenant-a started %d checks, want its 4", started)
	}
	j, err := v.start(verifyKey("b-0", "go"), "tenant-b", t0, time.Hour, lim, stall)
	if j == nil {
		t.Fatalf("tenant-b's target waits behind tenant-a's runs: %v", err)
	}
	t.Cleanup(func() { v.forgetRun("b-0") })
	// Slots freed in a namespace go back to it.
	v.forgetRun("a-0")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if j, _ := v.start(verifyKey("a-20", "go"), "tenant-a", t0, time.Hour, lim, stall); j != nil {
			t.Cleanup(func() { v.forgetRun("a-20") })
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tenant-a's freed slot never came back to it")
		}
		time.Sleep(10 * time.Millisecond)
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
	one := verifyLimits{total: 1, perNamespace: 1}
	t0 := time.Now()
	stalled, _ := v.start(verifyKey("run-a", "go"), "ns", t0, time.Hour, one, hold)
	if stalled == nil {
		t.Fatal("no slot for the first job")
	}
	v.forgetRun("run-a")
	select {
	case <-stalled.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the forgotten run's check still runs: it holds its slot until its deadline")
	}
	if next, err := v.start(verifyKey("run-b", "go"), "ns", t0, time.Hour, one, hold); next == nil {
		t.Errorf("another run's check found no slot after the first run was forgotten: %v", err)
	}
}

// A deleted run's job gives its slot back at once, even while its checks ignore their
// context and run on: the next run's target starts without waiting for them.
func TestForgetRunFreesSlotsAtOnce(t *testing.T) {
	lim := verifyLimits{total: 1, perNamespace: 1, forgetWaiter: time.Minute}
	var v verifications
	stuck := make(chan struct{})
	defer close(stuck)
	ignoresContext := func(context.Context) (verify.Report, error) { <-stuck; return verify.Report{}, nil }
	now := time.Now()
	if _, err := v.start(verifyKey("deleted", "go"), "a", now, time.Hour, lim, ignoresContext); err != nil {
		t.Fatal(err)
	}
	if _, err := v.start(verifyKey("next", "go"), "a", now, time.Hour, lim, ignoresContext); !errors.Is(err, errNoNamespaceSlot) {
		t.Fatalf("the one slot held: %v, want errNoNamespaceSlot", err)
	}
	v.forgetRun("deleted")
	if _, err := v.start(verifyKey("next", "go"), "a", now, time.Hour, lim, ignoresContext); err != nil {
		t.Errorf("after the run's deletion its slot is still held: %v", err)
	}
}
