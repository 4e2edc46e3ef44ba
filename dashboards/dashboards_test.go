package dashboards

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The chart provisions exactly these dashboards: charts/gauntlet/dashboards/ holds
// byte-identical copies (make manifests copies them), and nothing else.
func TestChartCopiesAreIdentical(t *testing.T) {
	names, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(testenv.Root(), "charts", "gauntlet", "dashboards")
	for _, name := range names {
		want, _ := Raw(name)
		got, err := os.ReadFile(filepath.Join(chart, name))
		if err != nil {
			t.Errorf("%v: run make manifests", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("charts/gauntlet/dashboards/%s differs from dashboards/%s: run make manifests", name, name)
		}
	}
	extra, _ := filepath.Glob(filepath.Join(chart, "*.json"))
	if len(extra) != len(names) {
		t.Errorf("charts/gauntlet/dashboards has %d dashboards, dashboards/ %d: remove the stale ones", len(extra), len(names))
	}
}

// Every dashboard has a Prometheus datasource variable and the namespace, run (or schedule),
// target and scenario variables; every annotation query reads through the datasource
// variable, with its time from its value; every panel and query reads through the datasource variable; query
// fields are the Prometheus query's own (an unknown one would be ignored by Grafana).
func TestDashboardVariablesAndDatasources(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	uids := map[string]bool{}
	for _, d := range ds {
		if d.UID == "" || uids[d.UID] {
			t.Errorf("%s: uid %q missing or not unique", d.File, d.UID)
		}
		uids[d.UID] = true
		vars := map[string]Variable{}
		for _, v := range d.Templating.List {
			vars[v.Name] = v
		}
		if v, ok := vars["datasource"]; !ok || v.Type != "datasource" || v.QueryText() != "prometheus" {
			t.Errorf("%s: no datasource variable of type prometheus: %+v", d.File, v)
		}
		// The results dashboards pick a run, the schedule history a schedule.
		pick := "run"
		if _, ok := vars["schedule"]; ok {
			pick = "schedule"
		}
		for _, name := range []string{"namespace", pick, "target", "scenario"} {
			v, ok := vars[name]
			if !ok || v.Type != "query" || v.Datasource == nil || v.Datasource.UID != "${datasource}" {
				t.Errorf("%s: variable %s missing or not a query on ${datasource}: %+v", d.File, name, v)
				continue
			}
			if _, _, err := LabelValues(v.QueryText()); err != nil {
				t.Errorf("%s: variable %s: %v", d.File, name, err)
			}
		}
		for _, p := range d.Leaves() {
			if p.Datasource == nil || p.Datasource.UID != "${datasource}" || p.Datasource.Type != "prometheus" {
				t.Errorf("%s: panel %q does not read ${datasource}", d.File, p.Title)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", d.File, p.Title)
			}
			for _, q := range p.Targets {
				if q.Expr == "" || q.Datasource == nil || q.Datasource.UID != "${datasource}" || q.Instant == q.Range {
					t.Errorf("%s: panel %q query %s: empty, not on ${datasource}, or not exactly one of instant and range", d.File, p.Title, q.RefID)
				}
			}
		}
		for _, a := range d.Annotations.List {
			if a.Datasource == nil || a.Datasource.UID != "${datasource}" || a.Target.Expr == "" || !a.UseValueForTime {
				t.Errorf("%s: annotation %q: not on ${datasource}, no expr, or not useValueForTime", d.File, a.Name)
			}
		}
		raw, _ := Raw(d.File)
		var doc struct {
			Panels []struct {
				Title   string           `json:"title"`
				Targets []map[string]any `json:"targets"`
			} `json:"panels"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{"refId": true, "expr": true, "legendFormat": true, "instant": true, "range": true, "format": true, "datasource": true}
		for _, p := range doc.Panels {
			for _, q := range p.Targets {
				for k := range q {
					if !known[k] {
						t.Errorf("%s: panel %q: query field %q is not a Prometheus query field", d.File, p.Title, k)
					}
				}
			}
		}
	}
}

func TestSubstituteAndLabelValues(t *testing.T) {
	got := Substitute(`x{run="$run",r="${runner}",t=~"$target"}[$__rate_interval]`,
		map[string]string{"run": "a", "runner": "b", "target": "(go|node)", "__rate_interval": "1m"})
	if want := `x{run="a",r="b",t=~"(go|node)"}[1m]`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	sel, label, err := LabelValues(`label_values(m{a="1",b=~"x,y"}, run)`)
	if err != nil || sel != `m{a="1",b=~"x,y"}` || label != "run" {
		t.Fatalf("got %q %q %v", sel, label, err)
	}
	if _, _, err := LabelValues("query_result(up)"); err == nil || !strings.Contains(err.Error(), "label_values") {
		t.Fatalf("want an error naming label_values, got %v", err)
	}
}
