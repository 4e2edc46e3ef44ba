package preflight

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	discoveryfake "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// served is a discovery that serves the given kinds (group version -> kind).
func served(kinds map[string]string) *discoveryfake.FakeDiscovery {
	d := &discoveryfake.FakeDiscovery{Fake: &clienttesting.Fake{}}
	for gv, kind := range kinds {
		d.Resources = append(d.Resources, &metav1.APIResourceList{GroupVersion: gv, APIResources: []metav1.APIResource{{Kind: kind}}})
	}
	return d
}

func statuses(results []Result) map[string]string {
	out := map[string]string{}
	for _, r := range results {
		out[r.Check] = r.Status
	}
	return out
}

// TestManagerRule: for the manager, before it knows the runs, a missing k6-operator is
// Missing (every run needs it), a missing CloudNativePG a warning (only runs with a
// database, which wait naming it), the ServiceMonitor skipped (the chart's, not the
// manager's); served CRDs are ok whoever asks.
func TestManagerRule(t *testing.T) {
	got := statuses(CheckCRDs(served(nil), ForManager))
	want := map[string]string{
		"k6-operator TestRun (k6.io/v1alpha1)":                          Missing,
		"CloudNativePG Cluster (postgresql.cnpg.io/v1)":                 Warn,
		"CloudNativePG Pooler (postgresql.cnpg.io/v1)":                  Warn,
		"prometheus-operator ServiceMonitor (monitoring.coreos.com/v1)": Skipped,
	}
	for check, status := range want {
		if got[check] != status {
			t.Errorf("nothing served: %s is %q, want %q", check, got[check], status)
		}
	}
	got = statuses(CheckCRDs(served(map[string]string{"k6.io/v1alpha1": "TestRun"}), ForManager))
	if s := got["k6-operator TestRun (k6.io/v1alpha1)"]; s != OK {
		t.Errorf("TestRun served: %q, want ok", s)
	}
}

// TestRunsRule: the CLI's rule requires, with runs, only the CRDs they use; without, any a
// run may use.
func TestRunsRule(t *testing.T) {
	noDB := &benchv1.BenchmarkRun{}
	direct := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Database: &benchv1.Database{ConnectVia: benchv1.ConnectViaDirect}}}
	for _, tc := range []struct {
		name            string
		runs            []*benchv1.BenchmarkRun
		cluster, pooler string
	}{
		{"no runs", nil, Missing, Missing},
		{"no database", []*benchv1.BenchmarkRun{noDB}, Skipped, Skipped},
		{"direct database", []*benchv1.BenchmarkRun{noDB, direct}, Missing, Skipped},
	} {
		got := statuses(CheckCRDs(served(nil), ForRuns(tc.runs)))
		if got["CloudNativePG Cluster (postgresql.cnpg.io/v1)"] != tc.cluster || got["CloudNativePG Pooler (postgresql.cnpg.io/v1)"] != tc.pooler {
			t.Errorf("%s: %v, want Cluster %s and Pooler %s", tc.name, got, tc.cluster, tc.pooler)
		}
		if got["prometheus-operator ServiceMonitor (monitoring.coreos.com/v1)"] != Warn {
			t.Errorf("%s: ServiceMonitor %q, want a warning", tc.name, got["prometheus-operator ServiceMonitor (monitoring.coreos.com/v1)"])
		}
	}
}
