package local

import (
	"os"
	"path/filepath"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// The fingerprint names this machine as /proc and uname(2) describe it, and each target's
// runtime from its preset.
func TestEnvironmentFingerprint(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Targets: []benchv1.Target{{Name: "a", Preset: "go-nethttp"}}}}
	p := &preset.Preset{Name: "go-nethttp", Runtime: preset.Component{Name: "go", Version: "1.26.8"}}
	env := environment(run, map[string]*preset.Preset{"go-nethttp": p})
	n := env.Nodes[0]
	if env.Mode != "Local" || n.CPUs < 1 || n.Kernel == "" || n.Architecture == "" || n.Role != "Both" {
		t.Fatalf("%+v", env)
	}
	if env.Images[0].Target != "a" || env.Images[0].Runtime != "go 1.26.8" {
		t.Fatalf("images %+v", env.Images)
	}
	f := filepath.Join(t.TempDir(), "os-release")
	if err := os.WriteFile(f, []byte("NAME=Debian\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := osRelease(f); got != "Debian GNU/Linux 13 (trixie)" {
		t.Fatalf("os-release: %q", got)
	}
}
