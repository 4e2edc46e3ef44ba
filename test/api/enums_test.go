package api

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The enum values before they were CamelCase are refused, by the API server and by gauntlet
// validate, each naming the field and the values it takes. An unquoted preparedStatements:
// off, which YAML 1.1 (kubectl's reader too) takes as false, is refused the same way, and
// gauntlet validate says why and what to write.
func TestOldEnumValuesAreRefused(t *testing.T) {
	testenv.Long(t)
	ns := newNamespace(t)
	for _, c := range []struct {
		name, old, new string // the line of base to replace, and its replacement
		field, allowed string
		validate       string // what gauntlet validate's message must say besides
	}{
		{"model open", "    model: Open\n", "    model: open\n",
			"spec.load.model", `supported values: "Open", "Closed"`, ""},
		{"model closed", "    model: Open\n", "    model: closed\n    connections: [10]\n",
			"spec.load.model", `supported values: "Open", "Closed"`, ""},
		{"connectVia direct", "  database:\n", "  database:\n    connectVia: direct\n",
			"spec.database.connectVia", `supported values: "Pooler", "Direct"`, ""},
		{"poolMode transaction", "    pooler: {poolMode: Transaction}\n", "    pooler: {poolMode: transaction}\n",
			"spec.database.pooler.poolMode", `supported values: "Session", "Transaction"`, ""},
		{"preparedStatements quoted off", "  database:\n", "  database:\n    preparedStatements: \"off\"\n",
			"spec.database.preparedStatements", `supported values: "Enabled", "Disabled"`, ""},
		{"preparedStatements unquoted off", "  database:\n", "  database:\n    preparedStatements: off\n",
			"spec.database.preparedStatements", `supported values: "Enabled", "Disabled"`,
			`spec.database.preparedStatements: Invalid value: false: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; write one of "Enabled", "Disabled"`},
		{"preparedStatements unquoted on", "  database:\n", "  database:\n    preparedStatements: on\n",
			"spec.database.preparedStatements", `supported values: "Enabled", "Disabled"`,
			`spec.database.preparedStatements: Invalid value: true: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; write one of "Enabled", "Disabled"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.old) {
				t.Fatalf("base has no %q", c.old)
			}
			doc := strings.Replace(base, c.old, c.new, 1)

			obj := map[string]any{}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil { // as kubectl reads it
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: obj}
			u.SetNamespace(ns)
			err := env.Client.Create(context.Background(), u, strict)
			if err == nil {
				t.Fatal("the API server accepted it")
			}
			t.Logf("the API server: %v", err)
			if msg := err.Error(); !strings.Contains(msg, c.field+": Unsupported value") || !strings.Contains(msg, c.allowed) {
				t.Errorf("the API server's message does not name %s with %s: %s", c.field, c.allowed, msg)
			}

			d := validator.Validate(context.Background(), []byte(doc))
			if len(d.Errors) == 0 {
				t.Fatal("gauntlet validate accepted it")
			}
			msg := d.Errors.ToAggregate().Error()
			want := c.validate
			if want == "" {
				want = c.field + ": Unsupported value"
			}
			if !strings.Contains(msg, want) {
				t.Errorf("gauntlet validate's message lacks %q: %s", want, msg)
			}
			if c.validate == "" && !strings.Contains(msg, c.allowed) {
				t.Errorf("gauntlet validate's message does not list %s: %s", c.allowed, msg)
			}
		})
	}
}
