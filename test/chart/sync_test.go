package chart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
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

// TestPresetImagesInStepWithTargets: values.yaml maps every preset to its target.yaml image,
// and values.schema.json accepts exactly those presets.
func TestPresetImagesInStepWithTargets(t *testing.T) {
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range presets {
		want[p.Name] = p.Image
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
