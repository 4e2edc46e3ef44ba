// Package release tests how release artifacts are signed and verified with a local key
// (hack/sign.sh), against an OCI registry of its own.
package release

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

var root = testenv.Root()

// tool is the path hack/tools.sh prints for a tool, building it on first use.
func tool(t *testing.T, name string) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "hack", "tools.sh"), name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/tools.sh %s: %v\n%s", name, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// run runs a command in dir with env added; it returns stdout and stderr together.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSignVerifyLocalKey: the chart, packaged and pushed by helm to an in-process registry,
// is signed by digest with hack/sign.sh and a key pair made for the test, offline, and
// verifies with that pair's public key; it does not verify with another key, and another
// digest (the chart pushed again at another version) does not verify with the right key.
func TestSignVerifyLocalKey(t *testing.T) {
	helm, cosign := tool(t, "helm"), tool(t, "cosign")
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")

	dir := t.TempDir()
	// No helm, docker or sigstore state of the machine's user: homes of the test's own.
	env := []string{"HOME=" + dir, "HELM_CONFIG_HOME=" + dir, "HELM_CACHE_HOME=" + dir, "HELM_DATA_HOME=" + dir,
		"DOCKER_CONFIG=" + dir, "COSIGN=" + cosign, "SIGN_PLAIN_HTTP=1", "COSIGN_PASSWORD=test-password"}
	push := func(version string) string {
		t.Helper()
		if out, err := run(t, dir, env, helm, "package", filepath.Join(root, "charts", "gauntlet"), "--version", version, "-d", dir); err != nil {
			t.Fatalf("helm package: %v\n%s", err, out)
		}
		if out, err := run(t, dir, env, helm, "push", filepath.Join(dir, "gauntlet-"+version+".tgz"), "oci://"+host+"/charts", "--plain-http"); err != nil {
			t.Fatalf("helm push: %v\n%s", err, out)
		}
		// The digest as the registry serves it, not as helm prints it.
		ref, err := name.ParseReference(host+"/charts/gauntlet:"+version, name.Insecure)
		if err != nil {
			t.Fatal(err)
		}
		desc, err := remote.Head(ref)
		if err != nil {
			t.Fatal(err)
		}
		return host + "/charts/gauntlet@" + desc.Digest.String()
	}
	chart, other := push("0.1.0"), push("0.1.1")

	for _, d := range []string{"right", "wrong"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, filepath.Join(dir, d), env, cosign, "generate-key-pair"); err != nil {
			t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
		}
	}
	sign := filepath.Join(root, "hack", "sign.sh")
	if out, err := run(t, dir, env, sign, "sign", chart, filepath.Join(dir, "right", "cosign.key")); err != nil {
		t.Fatalf("hack/sign.sh sign %s: %v\n%s", chart, err, out)
	}
	out, err := run(t, dir, env, sign, "verify", chart, filepath.Join(dir, "right", "cosign.pub"))
	if err != nil {
		t.Fatalf("hack/sign.sh verify with the signing key's public key: %v\n%s", err, out)
	}
	digest := chart[strings.LastIndex(chart, "@")+1:]
	if !strings.Contains(out, fmt.Sprintf(`"docker-manifest-digest":%q`, digest)) {
		t.Errorf("the verified payload does not name the signed digest %s:\n%s", digest, out)
	}
	// Each refusal for its own reason, not for a registry or network error.
	out, err = run(t, dir, env, sign, "verify", chart, filepath.Join(dir, "wrong", "cosign.pub"))
	if err == nil || !strings.Contains(out, "failed to verify signature") {
		t.Errorf("verify with another key's public key: %v, want failed to verify signature\n%s", err, out)
	}
	out, err = run(t, dir, env, sign, "verify", other, filepath.Join(dir, "right", "cosign.pub"))
	if err == nil || !strings.Contains(out, "no signatures found") {
		t.Errorf("verify another digest (%s, never signed): %v, want no signatures found\n%s", other, err, out)
	}
	// A tag names no fixed artifact: the script refuses it before asking cosign.
	out, err = run(t, dir, env, sign, "sign", host+"/charts/gauntlet:0.1.0", filepath.Join(dir, "right", "cosign.key"))
	if err == nil || !regexp.MustCompile(`names no digest`).MatchString(out) {
		t.Errorf("sign by tag: %v, want a refusal naming the missing digest\n%s", err, out)
	}
}
