package chart

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// imageRef finds every image a rendered chart deploys: containers' image fields and the
// manager's image flags (--image=preset=..., --null-responder-image=, --k6-image=, ...).
var imageRef = regexp.MustCompile(`(?m)(?:^\s*image: |-image=|--image=[a-z0-9-]+=)"?([^"\s]+)`)

// thirdParty are the images that are not the release's own: they keep their own tags.
var thirdParty = regexp.MustCompile(`^(docker\.io/)?grafana/k6:`)

// TestReleaseIsOneVersion packages the chart as the release workflow does (helm package
// --version X --app-version X) and renders the package: the manager, the wire agent, the
// null responder and every preset must run X, so a chart of one release never deploys the
// targets of another.
func TestReleaseIsOneVersion(t *testing.T) {
	const version = "9.8.7-rc.1"
	dir := t.TempDir()
	if _, err := helm(t, "package", chartDir, "--version", version, "--app-version", version, "-d", dir); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "gauntlet-"+version+".tgz")
	out, err := helm(t, "template", "gauntlet", pkg, "--set", "wireCapture.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	images := imageRef.FindAllStringSubmatch(out, -1)
	seen := map[string]bool{}
	for _, m := range images {
		image := m[1]
		if thirdParty.MatchString(image) {
			continue
		}
		seen[image] = true
		if !strings.HasSuffix(image, ":"+version) {
			t.Errorf("the chart packaged at %s deploys %s", version, image)
		}
	}
	for _, p := range presets {
		if !strings.Contains(out, "--image="+p.Name+"=") {
			t.Errorf("preset %s: no --image flag in the rendered chart", p.Name)
		}
	}
	// The manager, the wire agent and the null responder share one image; one per preset.
	if want := len(presets) + 1; len(seen) != want {
		t.Errorf("found %d of the release's images, want %d (every preset and the manager): %v", len(seen), want, seen)
	}

	// An override of every preset's tag, and one preset pinned by its own tag and another by
	// digest: those are deployed as written.
	digest := "registry.example/nginx@sha256:" + strings.Repeat("ab", 32)
	out, err = helm(t, "template", "gauntlet", pkg, "--set", "presetImageTag=nightly",
		"--set", "presetImages.go-nethttp=registry.example/go:1", "--set", "presetImages.nginx="+digest,
		"--set", "presetImages.cpp-epoll=localhost:5000/target-cpp-epoll")
	if err != nil {
		t.Fatal(err)
	}
	args := managerArgs(t, decode(t, out))
	for _, want := range []string{
		"--image=go-nethttp=registry.example/go:1",
		"--image=nginx=" + digest,
		"--image=cpp-epoll=localhost:5000/target-cpp-epoll:nightly", // a registry's port is no tag
		"--image=node-express=ghcr.io/gauntlet-bench/target-node-express:nightly",
		"--null-responder-image=ghcr.io/gauntlet-bench/gauntlet:" + version,
	} {
		if !contains(args, want) {
			t.Errorf("manager args %v lack %s", args, want)
		}
	}
}
