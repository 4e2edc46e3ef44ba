package api

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The columns kubectl get br shows by default stay narrow whatever a run holds: each one that
// prints a status string has a schema bound of at most 64 characters, so a long headline or
// target list goes to -o wide (priority 1), not into every line of the table.
func TestDefaultColumnsAreBounded(t *testing.T) {
	for _, file := range []string{"gauntlet.dev_benchmarkruns.yaml"} {
		raw, err := os.ReadFile(filepath.Join(testenv.Root(), "config", "crd", "bases", file))
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			status := v.Schema.OpenAPIV3Schema.Properties["status"]
			for _, c := range v.AdditionalPrinterColumns {
				field, ok := strings.CutPrefix(c.JSONPath, ".status.")
				if c.Priority != 0 || c.Type != "string" || !ok || strings.ContainsAny(field, ".[") {
					continue // wide only, a date or number, metadata, or a condition's status
				}
				prop, ok := status.Properties[field]
				switch {
				case !ok:
					t.Errorf("%s: column %s reads %s, which the schema does not have", file, c.Name, c.JSONPath)
				case len(prop.Enum) > 0:
				case prop.MaxLength == nil:
					t.Errorf("%s: default column %s reads %s, which has no length bound: want at most 64 characters, or priority 1 (-o wide)",
						file, c.Name, c.JSONPath)
				case *prop.MaxLength > 64:
					t.Errorf("%s: default column %s reads %s, bounded at %d characters: want at most 64, or priority 1 (-o wide)",
						file, c.Name, c.JSONPath, *prop.MaxLength)
				}
			}
		}
	}
}
