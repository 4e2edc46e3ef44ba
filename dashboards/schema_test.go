package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// panelTypes maps the panel types the dashboards use to their options types in
// @grafana/schema (module path, and whether the panel has a FieldConfig of its own).
var panelTypes = map[string]struct {
	module      string
	fieldConfig bool
}{
	"timeseries": {"TimeSeriesPanelCfg_types.gen", true},
	"bargauge":   {"BarGaugePanelCfg_types.gen", false},
	"stat":       {"StatPanelCfg_types.gen", false},
	"gauge":      {"GaugePanelCfg_types.gen", false},
	"table":      {"TablePanelCfg_types.gen", true},
}

// typeScriptCheck renders a dashboard as TypeScript that assigns its JSON to Grafana's own
// types: the dashboard to Dashboard, and each panel's options and fieldConfig to its panel
// plugin's Options and FieldConfig. Object literals get TypeScript's excess property check,
// so an unknown field, a misspelt one or a wrong type fails to compile.
func typeScriptCheck(data []byte) (string, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("import type { Dashboard, FieldConfigSource } from '@grafana/schema';\n")
	// JSON holds an enum's value, never the enum: Json<T> is T with every string enum
	// replaced by the union of its values (a mapped type keeps the excess property check).
	b.WriteString("type Json<T> = T extends string ? `${T}` : T extends Array<infer U> ? Array<Json<U>> : " +
		"T extends object ? { [K in keyof T]: Json<T[K]> } : T;\n")
	kinds := make([]string, 0, len(panelTypes))
	for k := range panelTypes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "import type * as %s from '@grafana/schema/dist/esm/raw/composable/%s/panelcfg/x/%s';\n", k, k, panelTypes[k].module)
	}
	// A Prometheus annotation query: @grafana/schema types the target as a bare DataQuery
	// and knows none of the Prometheus annotation fields, so they are listed here (from
	// Grafana's Prometheus data source: public/app/plugins/datasource/prometheus), and the
	// annotations are checked on their own, the rest of the dashboard as a Dashboard.
	b.WriteString("import type { AnnotationQuery, DataQuery } from '@grafana/schema';\n")
	b.WriteString("interface PromQuery extends DataQuery { expr: string; interval?: string; legendFormat?: string }\n")
	b.WriteString("type PromAnnotation = AnnotationQuery<PromQuery> & { titleFormat?: string; textFormat?: string; " +
		"tagKeys?: string; useValueForTime?: boolean; step?: string; seriesValueAsTimestamp?: boolean };\n")
	annotations, _ := json.Marshal(doc["annotations"])
	delete(doc, "annotations")
	rest, _ := json.Marshal(doc)
	fmt.Fprintf(&b, "export const dashboard: Json<Dashboard> = %s;\n", rest)
	fmt.Fprintf(&b, "export const annotations: Json<{ list: PromAnnotation[] }> = %s;\n", annotations)
	var walk func(panels []any) error
	walk = func(panels []any) error {
		for _, raw := range panels {
			p := raw.(map[string]any)
			kind, _ := p["type"].(string)
			if kind == "row" {
				if sub, ok := p["panels"].([]any); ok {
					if err := walk(sub); err != nil {
						return err
					}
				}
				continue
			}
			pt, ok := panelTypes[kind]
			if !ok {
				return fmt.Errorf("panel %v: type %q has no options type listed in panelTypes", p["title"], kind)
			}
			id := p["id"]
			opts, _ := json.Marshal(p["options"])
			fmt.Fprintf(&b, "export const options%v: Json<Partial<%s.Options>> = %s;\n", id, kind, opts)
			fc, _ := json.Marshal(p["fieldConfig"])
			custom := "Record<string, unknown>"
			if pt.fieldConfig {
				custom = "Partial<" + kind + ".FieldConfig>"
			}
			fmt.Fprintf(&b, "export const fieldConfig%v: Json<FieldConfigSource<%s>> = %s;\n", id, custom, fc)
		}
		return nil
	}
	panels, _ := doc["panels"].([]any)
	if err := walk(panels); err != nil {
		return "", err
	}
	return b.String(), nil
}

// tsc compiles the sources with @grafana/schema and TypeScript from hack/grafana-schema.sh.
func tsc(t *testing.T, sources map[string]string) (string, error) {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(testenv.Root(), "hack", "grafana-schema.sh")).Output()
	if err != nil {
		t.Fatalf("hack/grafana-schema.sh: %v", err)
	}
	modules := filepath.Join(strings.TrimSpace(string(out)), "node_modules")
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(modules, "typescript", "bin", "tsc"), "--noEmit", "--strict",
		"--module", "esnext", "--moduleResolution", "bundler", "--target", "es2022"}
	flags := len(args)
	for name, src := range sources {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, name)
	}
	sort.Strings(args[flags:])
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	res, err := cmd.CombinedOutput()
	return string(res), err
}

// Every dashboard type-checks against @grafana/schema: the dashboard model, and each
// panel's options and fieldConfig against its plugin's own types. In the same compile
// (tsc is slow on a loaded machine), broken copies show the check catches what it is
// for: an unknown panel field, an unknown panel option, a wrongly typed field, a value
// outside an option's enum and an unknown dashboard field each fail, on their own file.
func TestDashboardsMatchGrafanaSchema(t *testing.T) {
	testenv.Long(t)
	names, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{}
	for _, name := range names {
		data, _ := Raw(name)
		src, err := typeScriptCheck(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sources[strings.TrimSuffix(name, ".json")+".ts"] = src
	}
	data, _ := Raw("results.json")
	bad := []struct {
		name string
		edit func(d map[string]any)
		want string
	}{
		{"unknown panel field", func(d map[string]any) { panel(d, 1)["colour"] = "red" }, "'\"colour\"' does not exist in type"},
		{"unknown option", func(d map[string]any) { panel(d, 5)["options"].(map[string]any)["orientaton"] = "horizontal" }, "'\"orientaton\"' does not exist in type"},
		{"wrong type", func(d map[string]any) { panel(d, 1)["gridPos"] = map[string]any{"h": "4", "w": 6, "x": 0, "y": 0} }, "Type 'string' is not assignable to type 'number'"},
		{"unknown enum value", func(d map[string]any) { panel(d, 5)["options"].(map[string]any)["displayMode"] = "gradiant" }, "Type '\"gradiant\"' is not assignable"},
		{"unknown dashboard field", func(d map[string]any) { d["refreshEvery"] = "30s" }, "'\"refreshEvery\"' does not exist in type"},
		{"unknown annotation field", func(d map[string]any) {
			d["annotations"] = map[string]any{"list": []any{map[string]any{"name": "x", "enable": true, "iconColor": "red",
				"datasource": map[string]any{"type": "prometheus", "uid": "${datasource}"}, "target": map[string]any{"refId": "A", "expr": "up"}, "titelFormat": "x"}}}
		}, "'\"titelFormat\"' does not exist in type"},
	}
	for i, c := range bad {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		c.edit(d)
		broken, _ := json.Marshal(d)
		src, err := typeScriptCheck(broken)
		if err != nil {
			t.Fatal(err)
		}
		sources[fmt.Sprintf("bad%d.ts", i)] = src
	}
	out, _ := tsc(t, sources)
	errs := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if file, _, ok := strings.Cut(line, "("); ok && strings.Contains(line, "error TS") {
			errs[file] = append(errs[file], line)
		}
	}
	for _, name := range names {
		file := strings.TrimSuffix(name, ".json") + ".ts"
		if len(errs[file]) > 0 {
			t.Errorf("dashboards/%s does not match @grafana/schema:\n%s", name, strings.Join(errs[file], "\n"))
		}
	}
	for i, c := range bad {
		file := fmt.Sprintf("bad%d.ts", i)
		if len(errs[file]) != 1 || !strings.Contains(errs[file][0], c.want) {
			t.Errorf("%s: want one error with %q, tsc said:\n%s", c.name, c.want, strings.Join(errs[file], "\n"))
		}
	}
	t.Logf("%d dashboards type-checked against @grafana/schema; %d broken copies refused", len(names), len(bad))
}

// panel is the i-th top-level panel (rows included) of a decoded dashboard.
func panel(d map[string]any, i int) map[string]any {
	return d["panels"].([]any)[i].(map[string]any)
}
