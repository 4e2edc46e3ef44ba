package preset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const valid = `name: go-nethttp
description: Go standard library net/http with a pgx/v5 pool
language:  {name: Go, version: "1.26"}
runtime:   {name: go, version: "1.26"}
framework: {name: net/http, version: "go1.26"}
endpoints: [ping, time, db-ping, cpu-primes]
image: ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0
dockerfile: Dockerfile
local:
  install: hack/targets/go.sh
  start: [".build/server", "--port=${PORT}"]
`

func TestParseValid(t *testing.T) {
	p, err := Parse([]byte(valid), "go-nethttp")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "go-nethttp" || p.Framework.Name != "net/http" || p.Local.Install != "hack/targets/go.sh" {
		t.Errorf("decoded wrongly: %+v", p)
	}
	want := []Endpoint{Ping, Time, DBPing, CPUPrimes}
	if len(p.Endpoints) != len(want) {
		t.Fatalf("endpoints %v, want %v", p.Endpoints, want)
	}
	for i := range want {
		if p.Endpoints[i] != want[i] {
			t.Errorf("endpoints[%d] = %q, want %q", i, p.Endpoints[i], want[i])
		}
	}
	if !p.Supports(DBPing) || p.Supports(DBTime) {
		t.Error("Supports disagrees with the endpoint list")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, edit, dir, want string
	}{
		{"unknown field", "image: x\nimages: y", "go-nethttp", `unknown field "images"`},
		{"unknown nested field", "local:\n  install: hack/targets/go.sh\n  start: [a]\n  strat: [b]", "go-nethttp", `unknown field "strat"`}, //nolint:misspell // the misspelt key is the input
		{"name differs from folder", "", "other", `must equal its folder name "other"`},
		{"unknown endpoint", "endpoints: [ping, pong]", "go-nethttp", `unknown endpoint "pong"`},
		{"duplicate endpoint", "endpoints: [ping, ping]", "go-nethttp", `"ping" is listed twice`},
		{"no endpoints", "endpoints: []", "go-nethttp", "endpoints: at least one"},
		{"absolute install", "local: {install: /etc/x.sh, start: [a]}", "go-nethttp", `local.install: "/etc/x.sh" must be relative`},
		{"escaping dockerfile", "dockerfile: ../Dockerfile", "go-nethttp", "dockerfile: \"../Dockerfile\" must be a clean path"},
		{"empty start", "local: {install: hack/x.sh, start: []}", "go-nethttp", "local.start: a non-empty argv"},
		{"malformed var", `local: {start: ["${PORT"]}`, "go-nethttp", "local.start[0]: unclosed ${"},
		{"missing version", "runtime: {name: go}", "go-nethttp", "runtime.version: required"},
		{"wrong type", "endpoints: ping", "go-nethttp", "cannot unmarshal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(override(valid, tc.edit)), tc.dir)
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// override replaces the top-level keys set in edit, keeping the rest of base.
func override(base, edit string) string {
	if edit == "" {
		return base
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(edit, "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
			keys[k] = true
		}
	}
	var out []string
	skipping := false
	for _, line := range strings.Split(base, "\n") {
		if !strings.HasPrefix(line, " ") {
			k, _, _ := strings.Cut(line, ":")
			skipping = keys[k]
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n") + "\n" + edit + "\n"
}

func TestLoadAll(t *testing.T) {
	root := t.TempDir()
	write := func(dir, manifest string, dockerfile bool) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if manifest != "" {
			if err := os.WriteFile(filepath.Join(root, dir, FileName), []byte(manifest), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if dockerfile {
			if err := os.WriteFile(filepath.Join(root, dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("go-nethttp", valid, true)
	write("b-second", strings.ReplaceAll(valid, "name: go-nethttp", "name: b-second"), true)
	write("not-a-target", "", false)

	all, err := LoadAll(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Name != "b-second" || all[1].Name != "go-nethttp" {
		t.Fatalf("LoadAll = %v, want b-second then go-nethttp", names(all))
	}
	if all[1].Dir != filepath.Join(root, "go-nethttp") {
		t.Errorf("Dir = %q", all[1].Dir)
	}

	// A broken manifest and a missing Dockerfile are both reported, each naming its file.
	write("broken", "name: broken\nbogus: 1\n", false)
	write("c-nodocker", strings.ReplaceAll(valid, "name: go-nethttp", "name: c-nodocker"), false)
	all, err = LoadAll(root)
	if err == nil {
		t.Fatal("no error for a broken manifest")
	}
	for _, want := range []string{filepath.Join(root, "broken", FileName), `unknown field "bogus"`, `c-nodocker`, `dockerfile "Dockerfile"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if len(all) != 2 {
		t.Errorf("valid presets still loaded: got %v", names(all))
	}
}

func names(ps []*Preset) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestExpand(t *testing.T) {
	env := map[string]string{"PORT": "8080", "WORKERS": "4", "EMPTY": ""}
	cases := []struct{ in, want, err string }{
		{"--port=${PORT}", "--port=8080", ""},
		{"${WORKERS}x${PORT}", "4x8080", ""},
		{"$PORT stays", "$PORT stays", ""},
		{"cost: $5", "cost: $5", ""},
		{"[${EMPTY}]", "[]", ""},
		{"${NOPE}", "", "undefined variable ${NOPE}"},
		{"${PORT", "", "unclosed ${"},
		{"${1X}", "", `bad variable name "1X"`},
	}
	for _, tc := range cases {
		got, err := Expand(tc.in, env)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Expand(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	p, _ := Parse([]byte(valid), "go-nethttp")
	argv, err := p.ExpandStart(env)
	if err != nil || strings.Join(argv, " ") != ".build/server --port=8080" {
		t.Errorf("ExpandStart = %q, %v", argv, err)
	}
	if _, err := p.ExpandStart(map[string]string{}); err == nil || !strings.Contains(err.Error(), "go-nethttp: local.start[1]") {
		t.Errorf("ExpandStart without PORT: %v", err)
	}
}

func TestEndpointRoutes(t *testing.T) {
	if len(AllEndpoints()) != 11 {
		t.Fatalf("contract has 11 endpoints, got %d", len(AllEndpoints()))
	}
	r, ok := RouteOf(DevicesCommand)
	if !ok || r.Method != "POST" || r.Path != "/devices/{id}/command" || r.DB {
		t.Errorf("devices-command route = %+v", r)
	}
	if !DBDocuments.IsDB() || CPUPrimes.IsDB() {
		t.Error("IsDB wrong")
	}
	if _, err := ParseEndpoint("db_ping"); err == nil {
		t.Error("ParseEndpoint accepted db_ping")
	}
}
