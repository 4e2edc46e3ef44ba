// Package dashboards holds Gauntlet's Grafana dashboards (the JSON files here, copied into
// charts/gauntlet/dashboards/ for the Grafana sidecar) and reads their queries, so tests
// can run every panel's PromQL against a real Prometheus.
package dashboards

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

//go:embed *.json
var files embed.FS

// Dashboard is the part of a dashboard's JSON the tests read.
type Dashboard struct {
	File        string      `json:"-"`
	UID         string      `json:"uid"`
	Title       string      `json:"title"`
	Panels      []Panel     `json:"panels"`
	Templating  Templating  `json:"templating"`
	Annotations Annotations `json:"annotations"`
}

// Annotations are the dashboard's annotation queries.
type Annotations struct {
	List []Annotation `json:"list"`
}

// Annotation is a Prometheus annotation query: Grafana runs Target.Expr over the time range
// and marks each sample (at the sample's value, in ms, with useValueForTime).
type Annotation struct {
	Name            string      `json:"name"`
	Datasource      *Datasource `json:"datasource"`
	Target          Target      `json:"target"`
	UseValueForTime bool        `json:"useValueForTime"`
}

// Templating is the dashboard's variables.
type Templating struct {
	List []Variable `json:"list"`
}

// Variable is a dashboard variable. A query variable's query is an object holding the
// label_values(...) text, as Grafana's Prometheus variable editor saves it; a datasource
// variable's is the plugin type.
type Variable struct {
	Name       string      `json:"name"`
	Type       string      `json:"type"`
	Query      any         `json:"query"`
	Datasource *Datasource `json:"datasource"`
}

// QueryText is the variable's query as text.
func (v Variable) QueryText() string {
	switch q := v.Query.(type) {
	case string:
		return q
	case map[string]any:
		s, _ := q["query"].(string)
		return s
	}
	return ""
}

// Panel is a panel or a row; rows may hold panels of their own.
type Panel struct {
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *Datasource `json:"datasource"`
	Targets    []Target    `json:"targets"`
	Panels     []Panel     `json:"panels"`
}

// Datasource references a data source by type and uid (a variable such as ${datasource}).
type Datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Target is one Prometheus query of a panel.
type Target struct {
	RefID        string      `json:"refId"`
	Expr         string      `json:"expr"`
	LegendFormat string      `json:"legendFormat"`
	Instant      bool        `json:"instant"`
	Range        bool        `json:"range"`
	Format       string      `json:"format,omitempty"`
	Datasource   *Datasource `json:"datasource"`
}

// Query is one panel query with where it comes from.
type Query struct {
	Dashboard, Panel, PanelType string
	Target
}

// Load reads every dashboard, in file name order.
func Load() ([]Dashboard, error) {
	names, err := Files()
	if err != nil {
		return nil, err
	}
	out := make([]Dashboard, 0, len(names))
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var d Dashboard
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("dashboards/%s: %w", name, err)
		}
		d.File = name
		out = append(out, d)
	}
	return out, nil
}

// Files lists the dashboard files.
func Files() ([]string, error) {
	names, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range names {
		if path.Ext(e.Name()) == ".json" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Raw is a dashboard file's bytes.
func Raw(name string) ([]byte, error) { return files.ReadFile(name) }

// Leaves is every panel that is not a row, rows' own panels included.
func (d Dashboard) Leaves() []Panel {
	var out []Panel
	var walk func([]Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			out = append(out, p)
		}
	}
	walk(d.Panels)
	return out
}

// Queries is every panel query of the dashboard, then every annotation query (a range
// query, as Grafana runs it; Panel is "annotation NAME").
func (d Dashboard) Queries() []Query {
	var out []Query
	for _, p := range d.Leaves() {
		for _, t := range p.Targets {
			out = append(out, Query{Dashboard: d.UID, Panel: p.Title, PanelType: p.Type, Target: t})
		}
	}
	for _, a := range d.Annotations.List {
		t := a.Target
		t.Range = true
		out = append(out, Query{Dashboard: d.UID, Panel: "annotation " + a.Name, PanelType: "annotation", Target: t})
	}
	return out
}

// Substitute replaces $name and ${name} with vars[name], longest names first so $run
// never eats the start of $runner. Grafana's own interpolation does the same for single
// values; a multi-value regex variable is a single alternation such as (go|node).
func Substitute(expr string, vars map[string]string) string {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		expr = strings.ReplaceAll(expr, "${"+n+"}", vars[n])
		expr = strings.ReplaceAll(expr, "$"+n, vars[n])
	}
	return expr
}

// LabelValues splits a label_values(selector, label) variable query into its parts, as
// Grafana's Prometheus data source does before it asks the label values API.
func LabelValues(query string) (selector, label string, err error) {
	q := strings.TrimSpace(query)
	if !strings.HasPrefix(q, "label_values(") || !strings.HasSuffix(q, ")") {
		return "", "", fmt.Errorf("%q is not label_values(selector, label)", query)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(q, "label_values("), ")")
	i := strings.LastIndex(inner, ",")
	if i < 0 {
		return "", "", fmt.Errorf("%q has no label", query)
	}
	return strings.TrimSpace(inner[:i]), strings.TrimSpace(inner[i+1:]), nil
}
