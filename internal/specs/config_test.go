package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

func TestLoadConfig(t *testing.T) {
	dir := filepath.Join(testenv.Root(), "targets")
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "target.yaml"))
	if len(cfg.Images) != len(entries) || len(entries) == 0 {
		t.Errorf("%d images for %d target.yaml files", len(cfg.Images), len(entries))
	}
	if got, want := cfg.Images["go-nethttp"], "ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0"; got != want {
		t.Errorf("go-nethttp image = %q, want %q", got, want)
	}
	if cfg.K6Image != "grafana/k6:1.8.1" || cfg.PrometheusRemoteWriteURL != DefaultPrometheusRemoteWriteURL {
		t.Errorf("defaults: %+v", cfg)
	}
	schema, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
	if err != nil || cfg.SchemaSQL != string(schema) {
		t.Errorf("SchemaSQL is not targets/schema.sql (%v)", err)
	}
}

func TestOverrideImages(t *testing.T) {
	cfg := fixtureConfig()
	if err := cfg.OverrideImages(map[string]string{"go-nethttp": "mirror.example/go:1"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Images["go-nethttp"] != "mirror.example/go:1" {
		t.Errorf("override not applied: %v", cfg.Images)
	}
	err := cfg.OverrideImages(map[string]string{"nope": "x", "go-nethttp": "mirror.example/go:2"})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown preset: err = %v", err)
	}
	if cfg.Images["go-nethttp"] != "mirror.example/go:1" {
		t.Error("a refused override must change nothing")
	}
	if err := cfg.OverrideImages(map[string]string{"go-nethttp": " "}); err == nil {
		t.Error("an empty image must be refused")
	}
}
