package chart

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestKustomizeLevelWithChart: `kubectl apply -k config/default` installs what the chart
// installs at its defaults (with prometheus-operator served): the same kinds, as many of
// each; the aggregated admin/edit/view roles with the chart's rules; one dashboard
// ConfigMap per dashboards/*.json with the file's text; the generator floor's image flag,
// naming the manager's own image; and that image at the chart's appVersion.
func TestKustomizeLevelWithChart(t *testing.T) {
	rendered, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "gauntlet-system",
		"--api-versions", "monitoring.coreos.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	chart := decode(t, rendered)
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, "config", "default"))
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	built, err := resources.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	kust := decode(t, string(built))

	kinds := func(objs []object) map[string]int {
		n := map[string]int{}
		for _, o := range objs {
			if o.Kind != "Namespace" { // config/default makes its namespace; helm is given one
				n[o.Kind]++
			}
		}
		return n
	}
	if c, k := kinds(chart), kinds(kust); !reflect.DeepEqual(c, k) {
		t.Errorf("config/default installs %v, the chart %v", k, c)
	}

	// The aggregated roles: same labels, same rules.
	for _, aggregate := range []string{"rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-view"} {
		c, k := rules(t, chart, aggregate), rules(t, kust, aggregate)
		if c == nil || !reflect.DeepEqual(c, k) {
			t.Errorf("the ClusterRole labelled %s: config/default's rules %v, the chart's %v", aggregate, k, c)
		}
	}

	// Every dashboard, with the text of its file.
	files, _ := filepath.Glob(filepath.Join(root, "dashboards", "*.json"))
	if len(files) == 0 {
		t.Fatal("no dashboards/*.json")
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range kust {
			if got, ok := o.Data[filepath.Base(f)]; ok && o.Kind == "ConfigMap" {
				found = true
				if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
					t.Errorf("config/default's ConfigMap %s differs from dashboards/%s: run make manifests", o.Metadata.Name, filepath.Base(f))
				}
				if o.Metadata.Labels["grafana_dashboard"] != "1" {
					t.Errorf("ConfigMap %s lacks the label grafana_dashboard: \"1\" the Grafana sidecar looks for", o.Metadata.Name)
				}
			}
		}
		if !found {
			t.Errorf("config/default has no ConfigMap for dashboards/%s (config/dashboards/kustomization.yaml)", filepath.Base(f))
		}
	}

	image, args := manager(t, kust)
	if want := "ghcr.io/gauntlet-bench/gauntlet:" + chartAppVersion(t); image != want {
		t.Errorf("config/default runs %s; the chart at its appVersion runs %s", image, want)
	}
	if !contains(args, "--null-responder-image="+image) {
		t.Errorf("config/default's manager args %v lack --null-responder-image=%s (the generator floor)", args, image)
	}
}

// rules is the rules of the one ClusterRole with the label, as plain data.
func rules(t *testing.T, objs []object, label string) []any {
	t.Helper()
	for _, o := range objs {
		if o.Kind == "ClusterRole" && o.Metadata.Labels[label] == "true" {
			var role struct {
				Rules []any `json:"rules"`
			}
			if err := yaml.Unmarshal(o.Raw, &role); err != nil {
				t.Fatal(err)
			}
			return role.Rules
		}
	}
	return nil
}

// manager is the manager container's image and args in the Deployment.
func manager(t *testing.T, objs []object) (string, []string) {
	t.Helper()
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name  string   `json:"name"`
							Image string   `json:"image"`
							Args  []string `json:"args"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(o.Raw, &d); err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c.Image, c.Args
			}
		}
	}
	t.Fatal("no manager container")
	return "", nil
}
