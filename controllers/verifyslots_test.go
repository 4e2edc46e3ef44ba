package controllers

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// Two namespaces at their cap fill the operator's 8 slots; a third waits. As slots free,
// the waiting namespace takes them before the full ones take more, up to its fair share
// (8 among 3 namespaces: 2); past it, a free slot goes to whoever asks.
func TestVerifySlotsShareFairly(t *testing.T) {
	lim := verifyLimits{total: 8, perNamespace: 4, forgetWaiter: 5 * time.Second}
	var s verifySlots
	now := time.Unix(1000, 0)
	take := func(ns string, i int) error { return s.take(fmt.Sprintf("%s-run/t%d", ns, i), ns, now, lim) }
	for i := range 4 {
		for _, ns := range []string{"a", "b"} {
			if err := take(ns, i); err != nil {
				t.Fatalf("%s's slot %d: %v", ns, i, err)
			}
		}
	}
	if err := take("c", 0); !errors.Is(err, errNoVerificationSlot) {
		t.Fatalf("c with every slot held: %v, want errNoVerificationSlot", err)
	}
	// a's and b's further targets wait for their namespace's cap, not a shared slot.
	if err := take("a", 4); !errors.Is(err, errNoNamespaceSlot) {
		t.Fatalf("a at its cap: %v, want errNoNamespaceSlot", err)
	}

	s.release("a")
	if err := take("a", 5); !errors.Is(err, errNoFairSlot) {
		t.Errorf("a over its fair share while c waits: %v, want errNoFairSlot", err)
	}
	s.release("b")
	if err := take("b", 6); !errors.Is(err, errNoFairSlot) {
		t.Errorf("b over its fair share while c waits: %v, want errNoFairSlot", err)
	}
	if err := take("c", 0); err != nil {
		t.Errorf("c, waiting, with a free slot: %v", err)
	}
	if err := take("c", 1); err != nil {
		t.Errorf("c's second target, under its fair share of 2: %v", err)
	}
	// c holds its share, a and b theirs or more: nobody waits short of a share, so a free
	// slot is taken by whoever asks first.
	s.release("b")
	if err := take("c", 2); err != nil {
		t.Errorf("c at its fair share, nobody short of one: %v", err)
	}
	if s.held != 8 || s.inNS["a"] != 3 || s.inNS["b"] != 2 || s.inNS["c"] != 3 {
		t.Errorf("held %d, by namespace %v; want 8: a 3, b 2, c 3", s.held, s.inNS)
	}
}

// Nobody short of a fair share waiting: a free slot is taken whoever asks, never left idle.
func TestVerifySlotsLeaveNoSlotIdle(t *testing.T) {
	lim := verifyLimits{total: 5, perNamespace: 4, forgetWaiter: 5 * time.Second}
	var s verifySlots
	now := time.Unix(1000, 0)
	for i := range 3 {
		if err := s.take(fmt.Sprintf("a/t%d", i), "a", now, lim); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if err := s.take(fmt.Sprintf("b/t%d", i), "b", now, lim); err != nil {
			t.Fatal(err)
		}
	}
	// a over its share (5 among 2: 2) and b at it both wait: neither is short, so a free
	// slot goes to whoever asks.
	_ = s.take("a/t3", "a", now, lim)
	_ = s.take("b/t2", "b", now, lim)
	s.release("a")
	if err := s.take("a/t3", "a", now, lim); err != nil {
		t.Errorf("a with a free slot and nobody short of a share: %v", err)
	}
}

// A waiter that stops asking (its run deleted) holds no place after lim.forgetWaiter, and
// a run's waiters are dropped with it at once.
func TestVerifySlotsForgetWaiters(t *testing.T) {
	lim := verifyLimits{total: 2, perNamespace: 2, forgetWaiter: 5 * time.Second}
	var s verifySlots
	now := time.Unix(1000, 0)
	_ = s.take("a/t0", "a", now, lim)
	_ = s.take("a/t1", "a", now, lim)
	if err := s.take("gone/t0", "c", now, lim); !errors.Is(err, errNoVerificationSlot) {
		t.Fatal(err)
	}
	s.release("a")
	if err := s.take("a/t2", "a", now.Add(time.Second), lim); !errors.Is(err, errNoFairSlot) {
		t.Fatalf("a over its share while c waits: %v", err)
	}
	if err := s.take("a/t2", "a", now.Add(6*time.Second), lim); err != nil {
		t.Errorf("c stopped asking 6 s ago (forgotten after 5 s): a still waits: %v", err)
	}
	if err := s.take("gone/t0", "c", now.Add(7*time.Second), lim); !errors.Is(err, errNoVerificationSlot) {
		t.Fatal(err)
	}
	s.forgetWaiters("gone/")
	s.release("a")
	if err := s.take("a/t3", "a", now.Add(7*time.Second), lim); err != nil {
		t.Errorf("c's run forgotten: a still waits: %v", err)
	}
}
