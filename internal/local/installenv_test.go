package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// An install script run by root (npm ci, pip install: code from the registries) gets the
// toolchain's and the registries' variables, not root's secrets; run by anyone else it
// gets the caller's shell.
func TestInstallScriptEnvironment(t *testing.T) {
	secrets := map[string]string{"AWS_SECRET_ACCESS_KEY": "aws-secret", "GITHUB_TOKEN": "gh-token",
		"SSH_AUTH_SOCK": "/root/agent.sock", "NODE_OPTIONS": "--require=/root/hook.js", "LD_PRELOAD": "/root/hook.so"}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
	t.Setenv("LC_ALL", "C.UTF-8")

	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "hack"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "hack", "env.sh"), []byte("set -eu\nenv > \"$1/install.env\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(testenv.Root(), "hack", "local-user.sh"), filepath.Join(repo, "hack", "local-user.sh")); err != nil {
		t.Fatal(err)
	}
	p := tinyTarget(t, "hack/env.sh")
	if err := Install(context.Background(), repo, p); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(p.Dir, "install.env"))
	if err != nil {
		t.Fatal(err)
	}
	got := envMap(strings.Split(strings.TrimSpace(string(raw)), "\n"))
	root := os.Geteuid() == 0
	for k, v := range secrets {
		if root && got[k] != "" {
			t.Errorf("root's %s=%q reached the install script", k, got[k])
		} else if !root && got[k] != v {
			t.Errorf("%s = %q in an install run by the caller, want %q", k, got[k], v)
		}
	}
	if got["PATH"] != os.Getenv("PATH") || got["HTTPS_PROXY"] != "http://proxy.invalid:3128" || got["LC_ALL"] != "C.UTF-8" {
		t.Errorf("PATH %q, HTTPS_PROXY %q, LC_ALL %q: an install needs its toolchain, the proxy and the locale", got["PATH"], got["HTTPS_PROXY"], got["LC_ALL"])
	}
}
