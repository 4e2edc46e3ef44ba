// Package chart tests the Helm chart (charts/gauntlet), the image recipes (docker-bake.hcl
// and the Dockerfiles) and how both stay in step with the rest of the tree: helm lint, helm
// template validated by kubeconform against schemas from a real kube-apiserver, values.schema.json,
// a helm install (helm v4's Go SDK) into envtest, and the manager started with the chart's
// rendered arguments.
package chart

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

var (
	root     = testenv.Root()
	chartDir = filepath.Join(root, "charts", "gauntlet")
	// helmBin and kubeconformBin are built once by hack/tools.sh and cached in bin/.
	helmBin, kubeconformBin string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that need what the setup starts call testenv.Long
		os.Exit(m.Run())
	}
	ctrl.SetLogger(logr.Discard())
	var err error
	if helmBin, err = tool("tools.sh", "helm"); err == nil {
		kubeconformBin, err = tool("tools.sh", "kubeconform")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// tool runs a hack/ script that prints a path.
func tool(script string, args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "hack", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/%s %s: %v\n%s", script, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// helm runs the helm CLI; it returns stdout, and stderr folded into the error. A test that
// runs it sits out of the -short loop, where TestMain installs no helm.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	testenv.Long(t)
	cmd := exec.Command(helmBin, args...)
	// No repositories, plugins or caches of the machine's user: a clean helm home per test.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+home, "HELM_CACHE_HOME="+home, "HELM_DATA_HOME="+home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}
