package preflight

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// CRD is a CRD of another operator and which runs use it, as the manager's own check
// (controllers/prerequisites.go) requires them; prometheus-operator is only the chart's
// ServiceMonitor.
type CRD struct {
	Operator, GroupVersion, Kind string
	Used                         func(*benchv1.BenchmarkRun) bool // nil: no run uses it
	Why                          string
}

// Name is the check's name: operator, kind and group version.
func (c CRD) Name() string { return fmt.Sprintf("%s %s (%s)", c.Operator, c.Kind, c.GroupVersion) }

// CRDs are the other operators' CRDs Gauntlet may use.
var CRDs = []CRD{
	{"k6-operator", "k6.io/v1alpha1", "TestRun", func(*benchv1.BenchmarkRun) bool { return true }, "every trial is a TestRun"},
	{"CloudNativePG", "postgresql.cnpg.io/v1", "Cluster", func(r *benchv1.BenchmarkRun) bool { return r.Spec.Database != nil }, "runs with spec.database"},
	{"CloudNativePG", "postgresql.cnpg.io/v1", "Pooler", func(r *benchv1.BenchmarkRun) bool {
		return r.Spec.Database != nil && r.Spec.Database.ConnectVia != benchv1.ConnectViaDirect
	}, "runs with spec.database through PgBouncer"},
	{"prometheus-operator", "monitoring.coreos.com/v1", "ServiceMonitor", nil, "the chart's ServiceMonitor of the manager's metrics (optional)"},
}

// Absent is the status and detail of a CRD that is not served: how much it matters depends
// on who asks (ForRuns, ForManager).
type Absent func(CRD) (status, detail string)

// ForRuns is `gauntlet check`'s rule: without runs, a CRD any run may use is required; with
// runs, only one they use.
func ForRuns(runs []*benchv1.BenchmarkRun) Absent {
	return func(c CRD) (string, string) {
		switch {
		case c.Used == nil:
			return Warn, "not served: " + c.Why
		case len(runs) == 0 || slices.ContainsFunc(runs, c.Used):
			return Missing, "not served: install " + c.Operator + " (" + c.Why + ")"
		default:
			return Skipped, "not served, and no run of the file uses it (" + c.Why + ")"
		}
	}
}

// ForManager is the manager's rule at start, before it knows the runs: every run needs
// k6-operator; CloudNativePG only runs with a database, which wait with a condition naming
// it (controllers/prerequisites.go), so its absence is a warning; the ServiceMonitor is the
// chart's business, not the manager's, and is skipped.
func ForManager(c CRD) (string, string) {
	switch {
	case c.Used == nil:
		return Skipped, "not served: " + c.Why
	case c.Operator == "k6-operator":
		return Missing, "not served: install " + c.Operator + " (" + c.Why + "): every run waits until it is"
	default:
		return Warn, "not served: install " + c.Operator + " before runs with a database (" + c.Why + "); they wait until it is"
	}
}

// CheckCRDs asks API discovery, which any authenticated user may read, for each CRD.
func CheckCRDs(d discovery.DiscoveryInterface, absent Absent) []Result {
	var out []Result
	for _, c := range CRDs {
		served, err := serves(d, c.GroupVersion, c.Kind)
		switch {
		case err != nil:
			out = append(out, Result{c.Name(), Warn, "cannot ask the API server: " + err.Error()})
		case served:
			out = append(out, Result{c.Name(), OK, "served"})
		default:
			status, detail := absent(c)
			out = append(out, Result{c.Name(), status, detail})
		}
	}
	return out
}

func serves(d discovery.DiscoveryInterface, groupVersion, kind string) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Kind == kind }), nil
}
