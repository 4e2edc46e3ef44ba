package dashboards

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Report is what Check found: how much it asked, and every variable or query that came back
// empty or failed, each naming its dashboard and panel.
type Report struct {
	Dashboards, Panels, Queries int
	Problems                    []string
	// Skipped are the dashboards not checked because vars picks nothing for one of their
	// query variables (a run's vars for the schedule dashboard, a schedule's for the run
	// dashboards).
	Skipped []string
	// QuietAnnotations are annotation queries that ran and marked nothing: no events of
	// that kind in the range (a schedule with no Faster change point), not a problem.
	QuietAnnotations []string
}

// Check runs every dashboard's variables and panel queries against a Prometheus, as Grafana
// would with vars chosen in its pickers: each label_values variable must offer vars[name],
// and each panel query, substituted, must return data (instant queries at end, range queries
// over [start, end] at step). A dashboard with a query variable vars has no key for is
// skipped (Report.Skipped). Only an unreachable Prometheus is an error.
func Check(ctx context.Context, api promv1.API, vars map[string]string, start, end time.Time, step time.Duration) (Report, error) {
	all, err := Load()
	if err != nil {
		return Report{}, err
	}
	var r Report
	for _, d := range all {
		if !picksAll(d, vars) {
			r.Skipped = append(r.Skipped, d.UID)
			continue
		}
		r.Dashboards++
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			sel, label, err := LabelValues(v.QueryText())
			if err != nil {
				return r, err
			}
			values, _, _, err := api.LabelValues(ctx, label, []string{Substitute(sel, vars)}, start, end)
			if err != nil || !slices.Contains(values, model.LabelValue(vars[v.Name])) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: variable %s (%s) offers %v, not %q (err %v)", d.UID, v.Name, v.QueryText(), values, vars[v.Name], err))
			}
		}
		r.Panels += len(d.Leaves())
		for _, q := range d.Queries() {
			r.Queries++
			expr := Substitute(q.Expr, vars)
			where := fmt.Sprintf("%s / %s / %s", d.UID, q.Panel, q.RefID)
			if strings.Contains(expr, "$") {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: a variable is left: %s", where, expr))
				continue
			}
			n, err := points(ctx, api, expr, q.Instant, start, end, step)
			switch {
			case err != nil:
				r.Problems = append(r.Problems, fmt.Sprintf("%s: %v\n%s", where, err, expr))
			case n == 0 && q.PanelType == "annotation":
				r.QuietAnnotations = append(r.QuietAnnotations, where)
			case n == 0:
				r.Problems = append(r.Problems, fmt.Sprintf("%s returned no data:\n%s", where, expr))
			}
		}
	}
	return r, nil
}

// points counts what a query returns: series of an instant query, samples and histograms
// of a range query.
func points(ctx context.Context, api promv1.API, expr string, instant bool, start, end time.Time, step time.Duration) (int, error) {
	if instant {
		v, _, _, err := api.Query(ctx, expr, end)
		if err != nil {
			return 0, err
		}
		vec, _ := v.(model.Vector)
		return len(vec), nil
	}
	v, _, _, err := api.QueryRange(ctx, expr, promv1.Range{Start: start, End: end, Step: step})
	if err != nil {
		return 0, err
	}
	n := 0
	m, _ := v.(model.Matrix)
	for _, s := range m {
		n += len(s.Values) + len(s.Histograms)
	}
	return n, nil
}

// picksAll: vars has a value for every query variable of d.
func picksAll(d Dashboard, vars map[string]string) bool {
	for _, v := range d.Templating.List {
		if _, ok := vars[v.Name]; v.Type == "query" && !ok {
			return false
		}
	}
	return true
}
