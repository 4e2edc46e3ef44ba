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

// The rest of metadata is checked as the API server checks it on create (namespace, label
// and annotation keys and values), and a submitted run may not carry owner references or
// finalizers; each error names its field.
func TestMetadataIsValidatedAsOnCreate(t *testing.T) {
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
	good := `{name: ok, namespace: team-a, labels: {app.kubernetes.io/name: bench, team: a}, annotations: {example.com/note: "any text at all"}}`
	if d := doc(good); len(d.Errors) > 0 {
		t.Errorf("%s: %v", good, d.Errors)
	}
	for meta, field := range map[string]string{
		`{name: ok, namespace: ../../etc}`:                                                    "metadata.namespace",
		`{name: ok, namespace: UPPER}`:                                                        "metadata.namespace",
		`{name: ok, labels: {"a key": v}}`:                                                    "metadata.labels",
		`{name: ok, labels: {k: "a value with spaces"}}`:                                      "metadata.labels",
		`{name: ok, annotations: {"bad key!": v}}`:                                            "metadata.annotations",
		`{name: ok, finalizers: [example.com/hold]}`:                                          "metadata.finalizers",
		`{name: ok, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x, uid: "1"}]}`: "metadata.ownerReferences",
	} {
		d := doc(meta)
		found := false
		for _, e := range d.Errors {
			found = found || strings.HasPrefix(e.Field, field)
		}
		if !found {
			t.Errorf("%s: errors %v, want one on %s", meta, d.Errors, field)
		}
	}
}

// CPU and memory outside what any node has are refused, each naming its field (plan's
// CheckResources, which the operator's accept phase runs too); ordinary quantities pass.
func TestResourceQuantitiesAreBounded(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	doc := func(target, runner string) Document {
		t.Helper()
		docs, err := v.ReadAll(context.Background(), strings.NewReader(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: q}
spec:
  targets: [{name: go, preset: go-nethttp, resources: `+target+`}]
  loadGenerator: {resources: `+runner+`}
  scenarios: [{name: ping, workload: ping}]
  load: {rates: [100]}
`))
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v, %d documents", target, err, len(docs))
		}
		return docs[0]
	}
	if d := doc(`{cpu: 1500m, memory: 512Mi}`, `{cpu: 2, memory: 1Gi}`); len(d.Errors) > 0 {
		t.Errorf("ordinary quantities: %v", d.Errors)
	}
	for _, c := range []struct{ target, runner, field, says string }{
		{`{cpu: "-1"}`, `{}`, "spec.targets[0].resources.cpu", "cpu must be above 0"},
		{`{cpu: "0"}`, `{}`, "spec.targets[0].resources.cpu", "cpu must be above 0"},
		{`{cpu: 1Ei}`, `{}`, "spec.targets[0].resources.cpu", "at most 1024"},
		{`{memory: -5Gi}`, `{}`, "spec.targets[0].resources.memory", "memory must be above 0"},
		{`{memory: 1Ei}`, `{}`, "spec.targets[0].resources.memory", "at most 64Ti"},
		{`{}`, `{cpu: "0"}`, "spec.loadGenerator.resources.cpu", "cpu must be above 0"},
	} {
		d := doc(c.target, c.runner)
		found := false
		for _, e := range d.Errors {
			found = found || (e.Field == c.field && strings.Contains(e.Error(), c.says))
		}
		if !found {
			t.Errorf("%s / %s: errors %v, want %q on %s", c.target, c.runner, d.Errors, c.says, c.field)
		}
	}
}

// An unquoted on, off, yes or no is a boolean to YAML 1.1: where the schema wants a string,
// the one error on that field says so and what to write (the enum's values, or to quote
// it), in place of the schema's "must be of type string" and "Unsupported value: false".
func TestYAMLBooleansAreExplained(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := v.ReadAll(context.Background(), strings.NewReader(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: yaml-booleans}
spec:
  targets: [{name: go, preset: go-nethttp, env: [{name: GOGC, value: off}]}]
  database:
    preparedStatements: off
    parameters: {fsync: no}
  scenarios: [{name: ping, workload: db-ping}]
  load: {rates: [100], keepAlive: yes}
`))
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v, %d documents", err, len(docs))
	}
	want := map[string]string{
		"spec.database.preparedStatements": `spec.database.preparedStatements: Invalid value: false: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; write one of "Enabled", "Disabled"`,
		"spec.targets[0].env[0].value":     `spec.targets[0].env[0].value: Invalid value: false: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; quote the value`,
		"spec.database.parameters.fsync":   `spec.database.parameters.fsync: Invalid value: false: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; quote the value`,
	}
	got := map[string]string{}
	for _, e := range docs[0].Errors {
		if _, dup := got[e.Field]; dup {
			t.Errorf("more than one error on %s: %v", e.Field, docs[0].Errors)
		}
		got[e.Field] = e.Error()
	}
	for f, msg := range want {
		if got[f] != msg {
			t.Errorf("%s:\n got %q\nwant %q", f, got[f], msg)
		}
	}
	if len(got) != len(want) { // keepAlive: yes is the boolean it should be
		t.Errorf("errors %v, want only %v", docs[0].Errors, want)
	}
}

// The enums are CamelCase, their defaults too; the old lowercase values are refused with
// the values the field takes.
func TestEnumsAreCamelCase(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const doc = `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: enums}
spec:
  targets: [{name: go, preset: go-nethttp}]
  database: {}
  scenarios: [{name: ping, workload: db-ping}]
  load: {rates: [100]}
`
	d := v.Validate(context.Background(), []byte(doc))
	if len(d.Errors) > 0 {
		t.Fatal(d.Errors)
	}
	db := d.Run.Spec.Database
	if d.Run.Spec.Load.Model != "Open" || db.ConnectVia != "Pooler" || db.PreparedStatements != "Enabled" || db.Pooler.PoolMode != "Session" {
		t.Errorf("defaults: model %q, connectVia %q, preparedStatements %q, poolMode %q",
			d.Run.Spec.Load.Model, db.ConnectVia, db.PreparedStatements, db.Pooler.PoolMode)
	}
	for _, c := range []struct{ old, new, want string }{
		{"load: {rates: [100]}", "load: {model: open, rates: [100]}", `spec.load.model: Unsupported value: "open": supported values: "Open", "Closed"`},
		{"database: {}", "database: {connectVia: direct}", `spec.database.connectVia: Unsupported value: "direct": supported values: "Pooler", "Direct"`},
		{"database: {}", `database: {preparedStatements: "off"}`, `spec.database.preparedStatements: Unsupported value: "off": supported values: "Enabled", "Disabled"`},
		{"database: {}", "database: {pooler: {poolMode: session}}", `spec.database.pooler.poolMode: Unsupported value: "session": supported values: "Session", "Transaction"`},
	} {
		d := v.Validate(context.Background(), []byte(strings.Replace(doc, c.old, c.new, 1)))
		if msg := d.Errors.ToAggregate(); msg == nil || !strings.Contains(msg.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.new, msg, c.want)
		}
	}
}
