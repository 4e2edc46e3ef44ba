package local

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

// Every published sample and example, defaulted as the API server would, passes: the
// allow-lists cover seed 001's profile, the API's defaults and what the seeds set.
func TestSamplesAreSafe(t *testing.T) {
	v, err := validation.New()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(testenv.Root(), "config", "samples", "*.yaml"))
	examples, _ := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*.yaml"))
	if len(files) == 0 || len(examples) == 0 {
		t.Fatalf("no samples (%d) or examples (%d) found", len(files), len(examples))
	}
	for _, f := range append(files, examples...) {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := v.ReadAll(context.Background(), r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range docs {
			if len(d.Errors) > 0 {
				t.Fatalf("%s: %s is invalid: %v", f, d.Name(), d.Errors)
			}
			if d.Run.Spec.Database == nil || len(d.Run.Spec.Database.Parameters) == 0 {
				d.Run.Spec.Database = &benchv1.Database{Parameters: localdb.Seed001Parameters(),
					Pooler: benchv1.Pooler{Parameters: localdb.Seed001PoolerParameters()}}
			}
			if errs := CheckUnsafe(&d.Run.Spec); len(errs) > 0 {
				t.Errorf("%s: %s refused: %v", f, d.Name(), errs)
			}
		}
	}
}

func TestCheckUnsafeNamesEveryField(t *testing.T) {
	spec := &benchv1.BenchmarkRunSpec{
		Database: &benchv1.Database{
			Parameters: map[string]string{
				"shared_buffers": "256MB", "pg_stat_statements.max": "1000",
				"shared_preload_libraries": "pg_stat_statements", // what the run loads anyway
			},
			Pooler: benchv1.Pooler{Parameters: map[string]string{"default_pool_size": "50"}},
		},
		Targets: []benchv1.Target{{Name: "a", Env: []benchv1.EnvVar{
			{Name: "GODEBUG", Value: "madvdontneed=1"}, {Name: "UV_THREADPOOL_SIZE", Value: "8"},
			{Name: "NODE_ENV", Value: "production"}, {Name: "PYTHONUNBUFFERED", Value: "1"},
		}}},
	}
	if errs := CheckUnsafe(spec); len(errs) > 0 {
		t.Fatalf("tuning refused: %v", errs)
	}

	refusedParams := []string{"archive_command", "restore_command", "archive_library",
		"session_preload_libraries", "local_preload_libraries", "ssl_passphrase_command",
		"dynamic_library_path", "log_directory", "data_directory", "hba_file", "config_file",
		"ident_file", "unix_socket_directories", "logging_collector", "ssl_key_file", "include_dir"}
	for _, k := range refusedParams {
		spec.Database.Parameters[k] = "/tmp/x"
	}
	spec.Database.Parameters["shared_preload_libraries"] = "pg_stat_statements, /tmp/evil.so"
	refusedPooler := []string{"auth_query", "auth_hba_file", "admin_users", "client_tls_key_file", "resolv_conf"}
	for _, k := range refusedPooler {
		spec.Database.Pooler.Parameters[k] = "x"
	}
	refusedEnv := []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
		"NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT",
		"PERL5OPT", "BASH_ENV", "ENV", "GUNICORN_CMD_ARGS", "PATH", "HOST"}
	spec.Targets = append(spec.Targets, benchv1.Target{Name: "b"})
	for _, k := range refusedEnv {
		spec.Targets[1].Env = append(spec.Targets[1].Env, benchv1.EnvVar{Name: k, Value: "/tmp/x"})
	}

	got := map[string]string{}
	for _, e := range CheckUnsafe(spec) {
		got[e.Field] = e.Error()
	}
	var want []string
	for _, k := range append(refusedParams, "shared_preload_libraries") {
		want = append(want, "spec.database.parameters."+k)
	}
	for _, k := range refusedPooler {
		want = append(want, "spec.database.pooler.parameters."+k)
	}
	for j := range refusedEnv {
		want = append(want, "spec.targets[1].env["+strconv.Itoa(j)+"].name")
	}
	for _, f := range want {
		if _, ok := got[f]; !ok {
			t.Errorf("%s not refused", f)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d refusals, want %d: %v", len(got), len(want), got)
	}
	if msg := got["spec.database.parameters.shared_preload_libraries"]; !strings.Contains(msg, `"/tmp/evil.so"`) {
		t.Errorf("shared_preload_libraries: %q does not name the library", msg)
	}
}

// PrepareRun refuses an unsafe spec, naming the field, before anything starts, and lets it
// through with allowUnsafe.
func TestPrepareRunRefusesUnsafeUnlessAllowed(t *testing.T) {
	mk := func() *benchv1.BenchmarkRun {
		run := &benchv1.BenchmarkRun{}
		run.Name = "hostile"
		run.Spec = benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp", Env: []benchv1.EnvVar{{Name: "LD_PRELOAD", Value: "/tmp/x.so"}}}},
			Database:  &benchv1.Database{Parameters: map[string]string{"archive_command": "touch /tmp/pwned"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{10}, Repetitions: 1, Duration: "1s"},
		}
		return run
	}
	_, _, err := PrepareRun(mk(), testenv.Root(), 1, false)
	for _, want := range []string{"--allow-unsafe", "spec.database.parameters.archive_command", "spec.targets[0].env[0].name"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("PrepareRun: %v, want a refusal naming %s", err, want)
		}
	}
	if _, _, err := PrepareRun(mk(), testenv.Root(), 1, true); err != nil {
		t.Errorf("with allowUnsafe: %v", err)
	}
}

func TestCheckRunName(t *testing.T) {
	ok := []struct{ name, generate string }{{"seed-001", ""}, {"quick-150405", "quick-"}, {"a", ""}}
	for _, c := range ok {
		run := &benchv1.BenchmarkRun{}
		run.Name, run.GenerateName = c.name, c.generate
		if err := CheckRunName(run); err != nil {
			t.Errorf("%q/%q: %v", c.name, c.generate, err)
		}
	}
	bad := []struct{ name, generate, field string }{
		{"../../etc", "", "metadata.name"},
		{"a/b", "", "metadata.name"},
		{"a.b", "", "metadata.name"}, // a subdomain, not a label: no dots in a folder name
		{"Upper", "", "metadata.name"},
		{strings.Repeat("a", 64), "", "metadata.name"},
		{"", "", "metadata.name"},
		{"../x-150405", "../x-", "metadata.generateName"},
		{"", "a/", "metadata.generateName"},
	}
	for _, c := range bad {
		run := &benchv1.BenchmarkRun{}
		run.Name, run.GenerateName = c.name, c.generate
		err := CheckRunName(run)
		if err == nil || !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%q/%q: %v, want an error on %s", c.name, c.generate, err, c.field)
		}
	}
}
