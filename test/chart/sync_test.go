package chart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// TestCRDsInStepWithConfig: the chart's CRDs (files/crds, which templates/crds.yaml renders)
// are config/crd/bases byte for byte (`make manifests` copies them), none missing and none
// left over.
func TestCRDsInStepWithConfig(t *testing.T) {
	want := yamlFiles(t, filepath.Join(root, "config", "crd", "bases"))
	got := yamlFiles(t, filepath.Join(chartDir, "files", "crds"))
	if !slices.Equal(keys(want), keys(got)) {
		t.Fatalf("charts/gauntlet/files/crds holds %v, config/crd/bases %v: run `make manifests`", keys(got), keys(want))
	}
	for name, data := range want {
		if !bytes.Equal(data, got[name]) {
			t.Errorf("charts/gauntlet/files/crds/%s differs from config/crd/bases/%s: run `make manifests`", name, name)
		}
	}
}

// TestRBACInStepWithConfig: the manager's rules are config/rbac/role.yaml as controller-gen
// writes it.
func TestRBACInStepWithConfig(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(root, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(chartDir, "files", "manager-role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Fatal("charts/gauntlet/files/manager-role.yaml differs from config/rbac/role.yaml: run `make manifests`")
	}
}

// TestPresetImagesInStepWithTargets: values.yaml maps every preset to its target.yaml image's
// repository (the chart adds its appVersion as the tag), and values.schema.json accepts
// exactly those presets.
func TestPresetImagesInStepWithTargets(t *testing.T) {
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range presets {
		want[p.Name] = p.Image[:strings.LastIndex(p.Image, ":")]
	}
	var values struct {
		PresetImages map[string]string `json:"presetImages"`
	}
	readYAML(t, filepath.Join(chartDir, "values.yaml"), &values)
	if !mapsEqual(values.PresetImages, want) {
		t.Errorf("values.yaml presetImages = %v, the targets' target.yaml images are %v", values.PresetImages, want)
	}
	var schema struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	data, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	if accepted := keys(schema.Properties["presetImages"].Properties); !slices.Equal(accepted, keys(want)) {
		t.Errorf("values.schema.json accepts presetImages %v, want the presets %v", accepted, keys(want))
	}
}

func yamlFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no YAML files in %s (%v)", dir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestReadmeValuesTableNamesEveryValue: every key of values.yaml, and every key one level down
// in its structured groups, has a row in the README's Values table (a row names `group.key`,
// or `group.first` then `.key`), so a value added to the chart cannot go undocumented.
func TestReadmeValuesTableNamesEveryValue(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Values\n")
	if !ok {
		t.Fatal("charts/gauntlet/README.md has no ## Values section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var cells []string // the first cell of each row
	for _, line := range strings.Split(table, "\n") {
		if parts := strings.Split(line, "|"); len(parts) > 2 && strings.HasPrefix(line, "|") {
			cells = append(cells, parts[1])
		}
	}
	named := func(parent, key string) bool {
		for _, c := range cells {
			if parent == "" && (strings.Contains(c, "`"+key+"`") || strings.Contains(c, "`"+key+".")) {
				return true
			}
			if parent != "" && (strings.Contains(c, "`"+parent+"."+key+"`") || strings.Contains(c, "`"+parent+"."+key+".") ||
				(strings.Contains(c, "`"+parent+".") && (strings.Contains(c, "`."+key+"`") || strings.Contains(c, "`."+key+".")))) {
				return true
			}
		}
		return false
	}
	// Maps whose keys are the user's (labels, Kubernetes fields, presets), not the chart's.
	freeForm := map[string]bool{"presetImages": true, "resources": true, "podSecurityContext": true, "securityContext": true}
	var values map[string]any
	readYAML(t, filepath.Join(chartDir, "values.yaml"), &values)
	for key, v := range values {
		if !named("", key) {
			t.Errorf("values.yaml %s: no row of the README's Values table names it", key)
		}
		group, ok := v.(map[string]any)
		if !ok || freeForm[key] {
			continue
		}
		for sub := range group {
			if !named(key, sub) {
				t.Errorf("values.yaml %s.%s: no row of the README's Values table names it", key, sub)
			}
		}
	}
}

// TestManagerReadsSecretsByNameOnly: the manager may get a Secret (a run's or a schedule's
// image pull secrets, read by name and uncached) and nothing more: list or watch would hand it
// every Secret's content in the namespaces it serves.
func TestManagerReadsSecretsByNameOnly(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role struct {
		Rules []struct {
			APIGroups []string `json:"apiGroups"`
			Resources []string `json:"resources"`
			Verbs     []string `json:"verbs"`
		} `json:"rules"`
	}
	if err := yaml.Unmarshal(data, &role); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range role.Rules {
		if !slices.Contains(r.APIGroups, "") || !slices.Contains(r.Resources, "secrets") {
			continue
		}
		found = true
		if !slices.Equal(r.Verbs, []string{"get"}) {
			t.Errorf("the manager's rule on secrets grants %v, want get alone", r.Verbs)
		}
	}
	if !found {
		t.Error("the manager may not get secrets: a schedule's digest trigger cannot read its pull secrets")
	}
}
