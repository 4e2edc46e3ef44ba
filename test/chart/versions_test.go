package chart

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionsAgree: the versions the docs claim are the ones the tests run. The lab's
// operators are pinned in hack/lab/ops/go.mod and its Kubernetes in hack/lab/versions.sh;
// envtest's CRDs come from hack/crds.sh, whose CloudNativePG must be the API module the
// manager is built with (go.mod), and whose Kubernetes is hack/envtest-binaries.sh's.
// docs/cluster.md's Versions table and prose and the chart README's prerequisites must say
// the same.
func TestVersionsAgree(t *testing.T) {
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	find := func(rel, pattern string) string {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(read(rel))
		if m == nil {
			t.Fatalf("%s: nothing matches %s", rel, pattern)
		}
		return m[1]
	}
	lab := map[string]string{
		"CloudNativePG":       find("hack/lab/ops/go.mod", `(?m)^\s*github\.com/cloudnative-pg/cloudnative-pg (v\S+)`),
		"k6-operator":         find("hack/lab/ops/go.mod", `(?m)^\s*github\.com/grafana/k6-operator (v\S+)`),
		"prometheus-operator": find("hack/lab/ops/go.mod", `(?m)^\s*github\.com/prometheus-operator/prometheus-operator (v\S+)`),
		"Kubernetes":          find("hack/lab/versions.sh", `KUBE_VERSION="\$\{KUBE_VERSION:-(v[^}]+)\}"`),
		// The module v0.3XX.Y is Prometheus 3.XX.Y (hack/lab/versions.sh).
		"Prometheus": prometheusRelease(t, find("hack/lab/prom/go.mod", `github\.com/prometheus/prometheus (v\S+)`)),
	}
	envtestKube := find("hack/envtest-binaries.sh", `KUBE_VERSION="\$\{KUBE_VERSION:-(v[^}]+)\}"`)
	envtestCNPG := find("hack/crds.sh", `CNPG_VERSION="\$\{CNPG_VERSION:-(v[^}]+)\}"`)
	envtestPromOp := find("hack/crds.sh", `PROMETHEUS_OPERATOR_VERSION="\$\{PROMETHEUS_OPERATOR_VERSION:-(v[^}]+)\}"`)
	if api := find("go.mod", `(?m)^\s*github\.com/cloudnative-pg/api (v\S+)`); api != envtestCNPG {
		t.Errorf("hack/crds.sh gives envtest CloudNativePG %s's CRDs; the manager is built with github.com/cloudnative-pg/api %s", envtestCNPG, api)
	}
	if envtestKube != lab["Kubernetes"] {
		t.Errorf("envtest runs Kubernetes %s (hack/envtest-binaries.sh), the lab %s (hack/lab/versions.sh)", envtestKube, lab["Kubernetes"])
	}

	guide := read("docs/cluster.md")
	for component, version := range lab {
		row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(component) + `[^|]*\| (\S+) \|`).FindStringSubmatch(guide)
		if row == nil {
			t.Errorf("docs/cluster.md's Versions table has no %s row", component)
		} else if row[1] != version {
			t.Errorf("docs/cluster.md's Versions table says %s %s; the lab runs %s", component, row[1], version)
		}
	}
	for what, want := range map[string]string{
		"CloudNativePG " + envtestCNPG:         "envtest's CloudNativePG CRDs",
		"prometheus-operator " + envtestPromOp: "envtest's prometheus-operator CRDs",
		"kube-apiserver " + envtestKube:        "envtest's Kubernetes",
	} {
		if !strings.Contains(strings.Join(strings.Fields(guide), " "), what) {
			t.Errorf("docs/cluster.md does not name %s as %q", want, what)
		}
	}

	readme := read("charts/gauntlet/README.md")
	cell := regexp.MustCompile(`(?m)^\| CloudNativePG \(([^)]*)\)`).FindStringSubmatch(readme)
	if cell == nil {
		t.Fatal("charts/gauntlet/README.md's prerequisites table has no CloudNativePG (...) row")
	}
	for _, v := range regexp.MustCompile(`v?\d+\.\d+(\.\d+)?`).FindAllString(cell[1], -1) {
		if v := "v" + strings.TrimPrefix(v, "v"); v != lab["CloudNativePG"] && v != envtestCNPG {
			t.Errorf("charts/gauntlet/README.md names CloudNativePG %s; the lab runs %s and envtest checks %s", v, lab["CloudNativePG"], envtestCNPG)
		}
	}
	if !strings.Contains(cell[1], lab["CloudNativePG"]) {
		t.Errorf("charts/gauntlet/README.md's CloudNativePG row (%s) does not name the lab's %s", cell[1], lab["CloudNativePG"])
	}
}

// prometheusRelease is the Prometheus release of a github.com/prometheus/prometheus module
// version: v0.316.0 is v3.16.0.
func prometheusRelease(t *testing.T, module string) string {
	m := regexp.MustCompile(`^v0\.(\d+)(\d\d)\.(\d+)$`).FindStringSubmatch(module)
	if m == nil {
		t.Fatalf("hack/lab/prom/go.mod: %s is not a Prometheus 3 module version", module)
	}
	minor := strings.TrimPrefix(m[2], "0")
	if minor == "" {
		minor = "0"
	}
	return "v" + m[1] + "." + minor + "." + m[3]
}
