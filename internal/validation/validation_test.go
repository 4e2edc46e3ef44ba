package validation

import (
	"context"
	"strings"
	"testing"
)

// generateName is checked as the API server checks it (a DNS subdomain prefix), before it
// becomes part of a name, a results path or an object name.
func TestGenerateNameIsValidated(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	doc := func(meta string) Document {
		t.Helper()
		docs, err := v.ReadAll(context.Background(), strings.NewReader(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: `+meta+`
spec:
  targets: [{name: go, preset: go-nethttp}]
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [100]}
`))
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v, %d documents", meta, err, len(docs))
		}
		return docs[0]
	}
	if d := doc("{generateName: quick-}"); len(d.Errors) > 0 {
		t.Errorf("quick-: %v", d.Errors)
	}
	for _, bad := range []string{"../../etc-", "a/b-", "UPPER-"} {
		d := doc("{generateName: '" + bad + "'}")
		if len(d.Errors) == 0 || d.Errors[0].Field != "metadata.generateName" {
			t.Errorf("%s: errors %v, want one on metadata.generateName", bad, d.Errors)
		}
	}
}
