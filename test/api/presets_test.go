package api

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/config/crd"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

// The CRD's enums of presets and workloads are written as markers; they must name exactly the
// target folders and catalogue entries that exist, or the API would accept what cannot run.
func TestEnumsMatchTargetsAndCatalogue(t *testing.T) {
	testenv.Long(t)
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(crd.BenchmarkRun, &def); err != nil {
		t.Fatal(err)
	}
	spec := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	enum := func(s apiextensionsv1.JSONSchemaProps) []string {
		var out []string
		for _, v := range s.Enum {
			var str string
			if err := yaml.Unmarshal(v.Raw, &str); err != nil {
				t.Fatal(err)
			}
			out = append(out, str)
		}
		slices.Sort(out)
		return out
	}
	presets, err := preset.LoadAll(filepath.Join(testenv.Root(), "targets"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range presets {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if got := enum(spec.Properties["targets"].Items.Schema.Properties["preset"]); !slices.Equal(got, names) {
		t.Errorf("CRD preset enum %v\ntargets/ folders  %v", got, names)
	}
	if got := enum(spec.Properties["scenarios"].Items.Schema.Properties["workload"]); !slices.Equal(got, workload.Names()) {
		t.Errorf("CRD workload enum %v\ncatalogue        %v", got, workload.Names())
	}
}

// The CEL rule that requires spec.database lists the db workloads by name; it must agree with
// the catalogue's NeedsDatabase for every entry.
func TestDatabaseRuleMatchesCatalogue(t *testing.T) {
	testenv.Long(t)
	for _, name := range workload.Names() {
		w, _ := workload.Lookup(name)
		doc := validator.Validate(context.Background(), []byte(`
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: x}
spec:
  targets: [{name: go, preset: go-nethttp}]
  scenarios: [{name: s, workload: `+name+`}]
  load: {rates: [10]}
`))
		refused := len(doc.Errors) > 0
		if refused != w.NeedsDatabase {
			t.Errorf("workload %s: NeedsDatabase=%v but refused without a database=%v (%v)", name, w.NeedsDatabase, refused, doc.Errors)
		}
	}
}
