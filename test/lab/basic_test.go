//go:build lab && !labfull

package lab

import "testing"

// fullTier: make test runs the lab's core checks; the operators' checks (CloudNativePG,
// k6-operator, Prometheus) run in make lab-test (-tags labfull), see operators_test.go.
func (l *lab) fullTier(*testing.T) {}
