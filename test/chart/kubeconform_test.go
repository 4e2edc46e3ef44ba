package chart

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type kubeconformOutput struct {
	text string
	err  error
}

// kubeconformRun validates manifests with kubeconform (strict, no missing schema allowed)
// against the schemas hack/kube-schemas.sh generated from the envtest kube-apiserver.
func kubeconformRun(t *testing.T, manifests string) kubeconformOutput {
	t.Helper()
	location, err := tool("kube-schemas.sh")
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(location, "v*-standalone-strict"))
	if len(dirs) != 1 {
		t.Fatalf("want one schema version in %s, found %v", location, dirs)
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(dirs[0]), "v"), "-standalone-strict")
	cmd := exec.Command(kubeconformBin, "-strict", "-summary", "-verbose", "-output", "json",
		"-schema-location", location, "-kubernetes-version", version, "-")
	cmd.Stdin = strings.NewReader(manifests)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return kubeconformOutput{text: out.String(), err: err}
}

// kubeconform validates manifests and fails the test unless every resource is valid;
// it returns how many resources of each kind were validated.
func kubeconform(t *testing.T, manifests string) map[string]int {
	t.Helper()
	res := kubeconformRun(t, manifests)
	if res.err != nil {
		t.Fatalf("kubeconform: %v\n%s", res.err, res.text)
	}
	var report struct {
		Resources []struct {
			Kind   string `json:"kind"`
			Status string `json:"status"`
			Msg    string `json:"msg"`
		} `json:"resources"`
		Summary struct {
			Valid, Invalid, Errors, Skipped int
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(res.text), &report); err != nil {
		t.Fatalf("kubeconform output: %v\n%s", err, res.text)
	}
	if report.Summary.Invalid+report.Summary.Errors+report.Summary.Skipped > 0 || report.Summary.Valid == 0 {
		t.Fatalf("kubeconform: %s", res.text)
	}
	kinds := map[string]int{}
	for _, r := range report.Resources {
		kinds[r.Kind]++
	}
	if rendered := len(decode(t, manifests)); report.Summary.Valid != rendered {
		t.Fatalf("kubeconform validated %d resources, the manifests hold %d (%v)", report.Summary.Valid, rendered, kinds)
	}
	return kinds
}
