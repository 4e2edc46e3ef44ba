package controllers

import (
	"errors"
	"strings"
	"time"
)

// errNoFairSlot: other namespaces wait for a verification slot while the run's namespace
// already holds its fair share; a waiting namespace gets the next free slot.
var errNoFairSlot = errors.New("no verification slot free: other namespaces wait and this one holds its fair share")

// verifySlots is the pure bookkeeping of the verification caps: the slots held, by
// namespace, and who waits for one. A slot goes to the first to ask, within three bounds:
// the operator's total, the namespace's own cap, and fairness. Fairness only binds while
// another namespace waits below its fair share (the total divided among the namespaces
// holding or waiting for slots, at least 1): a namespace at or over its share then takes
// no further slot, so the next free ones go to the waiting namespace, whoever asks first.
// With nobody short of its share, a free slot is taken whoever asks: none is left idle.
type verifySlots struct {
	held int            // slots held, across every namespace
	inNS map[string]int // of those, each namespace's
	// waiting is every job refused a shared slot (the total or fairness; a namespace at
	// its own cap cannot use a free slot, so it makes no other wait), by job key, with its
	// namespace and when it last asked. A waiter that has not asked for lim.forgetWaiter
	// (a run deleted, or verified some other way) is forgotten.
	waiting map[string]waiter
}

type waiter struct {
	ns    string
	asked time.Time
}

// take gives job key of namespace ns a slot, or says why it waits.
func (s *verifySlots) take(key, ns string, now time.Time, lim verifyLimits) error {
	if s.inNS == nil {
		s.inNS, s.waiting = map[string]int{}, map[string]waiter{}
	}
	for k, w := range s.waiting {
		if now.Sub(w.asked) > lim.forgetWaiter {
			delete(s.waiting, k)
		}
	}
	if lim.perNamespace > 0 && s.inNS[ns] >= lim.perNamespace {
		delete(s.waiting, key)
		return errNoNamespaceSlot
	}
	var err error
	switch {
	case lim.total > 0 && s.held >= lim.total:
		err = errNoVerificationSlot
	case lim.total > 0 && s.inNS[ns] >= s.fairShare(ns, lim) && s.othersShort(ns, lim):
		err = errNoFairSlot
	}
	if err != nil {
		s.waiting[key] = waiter{ns: ns, asked: now}
		return err
	}
	delete(s.waiting, key)
	s.held++
	s.inNS[ns]++
	return nil
}

// fairShare is the total divided among the namespaces holding or waiting for slots, ns
// among them, at least 1.
func (s *verifySlots) fairShare(ns string, lim verifyLimits) int {
	active := map[string]bool{ns: true}
	for n := range s.inNS {
		active[n] = true
	}
	for _, w := range s.waiting {
		active[w.ns] = true
	}
	return max(1, lim.total/len(active))
}

// othersShort says whether a namespace other than ns waits with fewer slots than its fair
// share (and than its own cap): only such a one can use the next free slot.
func (s *verifySlots) othersShort(ns string, lim verifyLimits) bool {
	share := s.fairShare(ns, lim)
	if lim.perNamespace > 0 {
		share = min(share, lim.perNamespace)
	}
	for _, w := range s.waiting {
		if w.ns != ns && s.inNS[w.ns] < share {
			return true
		}
	}
	return false
}

// release gives back a slot of namespace ns.
func (s *verifySlots) release(ns string) {
	s.held--
	if s.inNS[ns]--; s.inNS[ns] == 0 {
		delete(s.inNS, ns)
	}
}

// forgetWaiters drops the waiters whose job keys start with prefix (a run's).
func (s *verifySlots) forgetWaiters(prefix string) {
	for k := range s.waiting {
		if strings.HasPrefix(k, prefix) {
			delete(s.waiting, k)
		}
	}
}
