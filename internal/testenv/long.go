package testenv

import "testing"

// Long marks a test that starts real processes (k6, PostgreSQL, PgBouncer, targets, a browser,
// Prometheus, an API server): go test -short, the fast loop (make test-unit), skips it; every
// other run, make test's tiers included, runs it.
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real processes: runs without -short (make test)")
	}
}
