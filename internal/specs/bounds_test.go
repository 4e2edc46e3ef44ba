package specs

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func TestCheckSpec(t *testing.T) {
	withDB := func(storage string) *benchv1.BenchmarkRunSpec {
		q := resource.MustParse(storage)
		return &benchv1.BenchmarkRunSpec{Database: &benchv1.Database{Storage: &q}}
	}
	withPath := func(db bool, p string) *benchv1.BenchmarkRunSpec {
		s := &benchv1.BenchmarkRunSpec{Scenarios: []benchv1.Scenario{{Name: "mix", Requests: []benchv1.Request{{Path: p}}}}}
		if db {
			s.Database = &benchv1.Database{}
		}
		return s
	}
	for name, c := range map[string]struct {
		spec *benchv1.BenchmarkRunSpec
		want string // "" accepted, else the field path named
	}{
		"storage 10Gi":             {withDB("10Gi"), ""},
		"storage 0":                {withDB("0"), "spec.database.storage"},
		"storage -10Gi":            {withDB("-10Gi"), "spec.database.storage"},
		"storage 1Ei":              {withDB("1Ei"), "spec.database.storage"},
		"storage 1Mi":              {withDB("1Mi"), "spec.database.storage"},
		"plain path":               {withPath(false, "/api/items?limit=10"), ""},
		"trailing slash":           {withPath(false, "/api/items/"), ""},
		"placeholder":              {withPath(true, "/api/db/document/{id}"), ""},
		"db path with database":    {withPath(true, "/api/db/ping"), ""},
		"dot segment to db":        {withPath(false, "/./api/db/ping"), "spec.scenarios[0].requests[0].path"},
		"dot-dot to db":            {withPath(false, "/x/../api/db/ping"), "spec.scenarios[0].requests[0].path"},
		"double slash":             {withPath(false, "//api/db/ping"), "spec.scenarios[0].requests[0].path"},
		"encoded letter to db":     {withPath(false, "/api/%64b/ping"), "spec.scenarios[0].requests[0].path"},
		"encoded slash and dots":   {withPath(false, "/api/%2e%2e/api/db/ping"), "spec.scenarios[0].requests[0].path"},
		"bad escape":               {withPath(false, "/api/%zz"), "spec.scenarios[0].requests[0].path"},
		"dot segment, with its db": {withPath(true, "/./api/db/ping"), "spec.scenarios[0].requests[0].path"},
	} {
		errs := CheckSpec(c.spec)
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: refused: %v", name, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%s: %v, want one error naming %s", name, errs, c.want)
		}
	}
}
