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

// gauntlet validate takes BenchmarkSchedule documents: their own fields as the API server
// and the schedule controller check them (cron, time zone, interval, policy, name), and
// their template as a BenchmarkRun, each error named where it is in the schedule.
func TestValidateSchedules(t *testing.T) {
	const good = `apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkSchedule
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  timeZone: Europe/Berlin
  startingDeadlineSeconds: 600
  concurrencyPolicy: Replace
  template:
    labels: {team: web}
    spec:
      targets: [{name: go, preset: go-nethttp}]
      scenarios: [{name: ping, workload: ping}]
      load: {rates: [200], repetitions: 5}
`
	validate := func(doc string) (int, string) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "schedule.yaml")
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := newValidateCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs([]string{"-f", file})
		return int(exitCode(cmd.Execute())), strings.ReplaceAll(out.String(), file, "FILE")
	}
	if code, out := validate(good); code != 0 || out != "FILE: nightly is valid\n" {
		t.Fatalf("the good schedule: exit %d, printed %s", code, out)
	}
	for _, c := range []struct{ old, new, want string }{
		{`timeZone: Europe/Berlin`, `timeZone: Europe/Atlantis`, "spec.timeZone: Invalid value: "},
		{`timeZone: Europe/Berlin`, `timeZone: Local`, "spec.timeZone: Invalid value: "},
		{`schedule: "0 3 * * *"`, `schedule: "CRON_TZ=Europe/Berlin 0 3 * * *"`, "spec.schedule: Invalid value: "},
		{`schedule: "0 3 * * *"`, `schedule: "@every 10s"`, `spec.schedule: Invalid value: "@every 10s": times 10s apart, at least 30s`},
		{`schedule: "0 3 * * *"`, `schedule: "every night"`, `spec.schedule: Invalid value: "every night": expected exactly 5 fields`},
		{`concurrencyPolicy: Replace`, `concurrencyPolicy: Sometimes`, `spec.concurrencyPolicy: Unsupported value: "Sometimes"`},
		{`startingDeadlineSeconds: 600`, `startingDeadlineSeconds: 5`, "spec.startingDeadlineSeconds: Invalid value: 5"},
		{`name: nightly`, `name: ` + strings.Repeat("n", 64), "metadata.name: "},
		{`rates: [200]`, `rates: [0]`, "spec.template.spec.load.rates[0]: "},
		{`repetitions: 5}`, "repetitions: 5}\n      baseline: {run: last-good}\n      bogus: 1", "spec.template.spec.bogus: Forbidden: unknown field"},
		{`labels: {team: web}`, `labels: {"a key": web}`, "spec.template.labels: Invalid value: "},
	} {
		doc := strings.Replace(good, c.old, c.new, 1)
		code, out := validate(doc)
		if code != int(outcome.Usage) || !strings.Contains(out, " is invalid:\n  - "+c.want) {
			t.Errorf("%s: exit %d, printed\n%s\nwant a line starting %q", c.new, code, out, c.want)
		}
	}
}
