//go:build lab && labfull

package lab

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/dashboards"
)

// prometheus is the lab's Prometheus API, through the API server's service proxy.
func (l *lab) prometheus(t *testing.T) promv1.API {
	rt, err := rest.TransportFor(l.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.NewClient(api.Config{RoundTripper: rt,
		Address: strings.TrimSuffix(l.cfg.Host, "/") + "/api/v1/namespaces/monitoring/services/prometheus-operated:9090/proxy"})
	if err != nil {
		t.Fatal(err)
	}
	return promv1.NewAPI(c)
}

// checkDashboards: every panel of dashboards/ returns data from the lab's Prometheus for a
// run that succeeded through the real operators. The manager's result metrics reach that
// Prometheus as a user's would: the chart's metrics Service, over https with Prometheus's
// token, which the chart's metrics.readers authorises (hack/lab/manifests/prometheus.yaml
// has the scrape, for want of Kubernetes discovery in Debian's Prometheus).
func (l *lab) checkDashboards(t *testing.T, run *benchv1.BenchmarkRun) {
	c := ctx(t, 5*time.Minute)
	papi := l.prometheus(t)
	sel := `gauntlet_result_valid{namespace="` + run.Namespace + `",run="` + run.Name + `"}`
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, _, _, err := papi.Query(c, sel, time.Now())
		if vec, ok := v.(model.Vector); err == nil && ok && len(vec) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lab's Prometheus has no %s 2 minutes after the run succeeded (%v): is the manager's metrics endpoint scraped?", sel, err)
		}
		time.Sleep(5 * time.Second)
	}
	time.Sleep(11 * time.Second) // range queries step every 5 s: let the scrape cover two steps
	vars := map[string]string{"namespace": run.Namespace, "run": run.Name, "target": run.Spec.Targets[0].Name,
		"scenario": run.Spec.Scenarios[0].Name, "__rate_interval": "30s", "__interval": "5s"}
	_ = l.dashboardsHaveData(t, vars, run.Status.StartedAt.Add(-time.Minute))
}

// dashboardsHaveData checks every dashboard whose variables vars picks (a run's: the
// results dashboards; a schedule's: its history) against the lab's Prometheus from start
// on: each variable offers the pick and each panel and annotation query returns data.
// optional names panels that may lack data (a figure the runs do not have), logged only.
func (l *lab) dashboardsHaveData(t *testing.T, vars map[string]string, start time.Time, optional ...string) dashboards.Report {
	t.Helper()
	rep, err := dashboards.Check(ctx(t, 5*time.Minute), l.prometheus(t), vars, start, time.Now(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if slices.ContainsFunc(optional, func(panel string) bool { return strings.Contains(p, "/ "+panel+" /") }) {
			t.Logf("without data, allowed here: %s", p)
			continue
		}
		t.Error(p)
	}
	if rep.Dashboards == 0 {
		t.Errorf("no dashboard picks %v (skipped %v)", vars, rep.Skipped)
	}
	t.Logf("dashboards against the lab's Prometheus: %d dashboards, %d panels, %d queries, %d without data; annotations with no mark: %v; not this one's: %v",
		rep.Dashboards, rep.Panels, rep.Queries, len(rep.Problems), rep.QuietAnnotations, rep.Skipped)
	return rep
}
