package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Every reason the engine's code names is in Reasons, and each mode's entry names a test
// that exists (in the engine, the operator, the local mode or their end-to-end tiers) or
// says why the mode cannot reach it.
func TestReasonsAreListedAndReachable(t *testing.T) {
	named := regexp.MustCompile(`benchv1\.(Reason\w+)`)
	files, _ := filepath.Glob("*.go")
	listed := map[string]bool{}
	for _, r := range Reasons {
		listed[r.Reason] = true
	}
	src, err := os.ReadFile("../../api/v1alpha1/reasons.go")
	if err != nil {
		t.Fatal(err)
	}
	value := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\t(Reason\w+)\s*=\s*"(\w+)"`).FindAllStringSubmatch(string(src), -1) {
		value[m[1]] = m[2]
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "reasons.go" {
			continue
		}
		b, _ := os.ReadFile(f)
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			if !listed[value[m[1]]] {
				t.Errorf("%s sets %s, which engine.Reasons does not list", f, m[1])
			}
		}
	}
	tests := testNames(t)
	for _, r := range Reasons {
		for mode, where := range map[string]string{"cluster": r.Cluster, "local": r.Local} {
			if strings.HasPrefix(where, "not reachable: ") {
				continue
			}
			if !slices.Contains(tests, where) {
				t.Errorf("%s in the %s mode: no test %s", r.Reason, mode, where)
			}
		}
	}
}

// testNames are the Test functions of the engine, the operator, the local mode and their
// end-to-end tiers.
func testNames(t *testing.T) []string {
	var out []string
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	for _, dir := range []string{"internal/engine", "controllers", "internal/local", "test/local", "test/lab"} {
		files, _ := filepath.Glob(filepath.Join(testenv.Root(), dir, "*_test.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}
