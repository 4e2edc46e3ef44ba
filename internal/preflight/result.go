// Package preflight checks what runs need of the cluster and its Prometheus before any run:
// the other operators' CRDs, the Prometheus's remote-write receiver, native histograms and
// cAdvisor series, each node's CPU manager policy. `gauntlet check` prints the results; the
// manager runs them at start and periodically (Runner) and reports them as Events on its
// Pod, a gauge and log lines.
package preflight

// Statuses of a check: only Missing fails (`gauntlet check` exits 1; the manager's gauge is 0).
const (
	OK      = "ok"
	Missing = "MISSING"
	Warn    = "warn"
	Skipped = "skipped"
)

// Result is one check's outcome.
type Result struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}
