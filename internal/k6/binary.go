// Package k6 runs the real k6 binary for a workload.Plan and reads back exact figures
// of the measured window. It knows nothing of Kubernetes: the local mode uses it as is.
package k6

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is the k6 release hack/k6.sh installs; docs/sizing.md's figures were measured with it.
const Version = "v1.8.1"

// BinaryEnv, when set, is the k6 binary to use instead of <repo>/bin/k6.
const BinaryEnv = "GAUNTLET_K6"

// Binary finds k6: $GAUNTLET_K6, else <root>/bin/k6, and checks that it runs and is
// the pinned version. Every failure says how to install it.
func Binary(root string) (string, error) {
	path := os.Getenv(BinaryEnv)
	if path == "" {
		path = filepath.Join(root, "bin", "k6")
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("k6 not found at %s: run hack/k6.sh to install k6 %s (or set %s)", path, Version, BinaryEnv)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("k6 at %s does not run (%v): run hack/k6.sh to reinstall k6 %s", path, err, Version)
	}
	if !strings.HasPrefix(string(out), "k6 "+Version+" ") {
		return "", fmt.Errorf("k6 at %s is %q, want %s: run hack/k6.sh", path, strings.TrimSpace(string(out)), Version)
	}
	return path, nil
}
