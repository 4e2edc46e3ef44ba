package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/outcome"
)

// gauntlet validate on an unquoted preparedStatements: off (false to YAML 1.1) names the
// field and says what to write instead; the quoted old value lists the values it takes.
func TestValidateExplainsPreparedStatementsOff(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"off", `  - spec.database.preparedStatements: Invalid value: false: a YAML boolean, not a string: unquoted, YAML 1.1 reads on, off, yes and no as true or false; write one of "Enabled", "Disabled"` + "\n"},
		{`"off"`, `  - spec.database.preparedStatements: Unsupported value: "off": supported values: "Enabled", "Disabled"` + "\n"},
	} {
		file := filepath.Join(t.TempDir(), "run.yaml")
		doc := `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: prepared}
spec:
  targets: [{name: go, preset: go-nethttp}]
  database:
    preparedStatements: ` + c.value + `
  scenarios: [{name: ping, workload: db-ping}]
  load: {model: Open, rates: [100]}
`
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := newValidateCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true // as under the root command
		cmd.SetArgs([]string{"-f", file})
		err := cmd.Execute()
		if exitCode(err) != outcome.Usage {
			t.Errorf("%s: exit status %d, want %d (%v)", c.value, exitCode(err), outcome.Usage, err)
		}
		want := file + ": prepared is invalid:\n" + c.want
		if out.String() != want {
			t.Errorf("%s: printed\n%s\nwant\n%s", c.value, out.String(), want)
		}

		// What it asks for is accepted.
		if err := os.WriteFile(file, []byte(strings.Replace(doc, "preparedStatements: "+c.value, "preparedStatements: Disabled", 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		cmd = newValidateCmd()
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"-f", file})
		if err := cmd.Execute(); err != nil || out.String() != file+": prepared is valid\n" {
			t.Errorf("Disabled: %v, printed %s", err, out.String())
		}
	}
}
