package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond every 20 ms and fails the test when it is not met within 5 s: for a
// child process to reach a state (started, forked) that it reports only by its effects.
func WaitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
