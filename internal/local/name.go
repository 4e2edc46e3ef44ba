package local

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// CheckRunName refuses a run name that could not be a DNS label (RFC 1123: at most 63
// lowercase letters, digits and '-', starting and ending with a letter or digit) before it
// becomes part of the results path: no "..", no slash, nothing a shell or a path would
// read differently. A generateName is checked as the prefix it is (a trailing '-' allowed).
func CheckRunName(run *benchv1.BenchmarkRun) error {
	if g := run.GenerateName; g != "" {
		if msgs := validation.IsDNS1123Label(strings.TrimSuffix(g, "-") + "-x"); len(msgs) > 0 {
			return fmt.Errorf("metadata.generateName: %q: %s", g, strings.Join(msgs, "; "))
		}
	}
	if run.Name == "" {
		return fmt.Errorf("metadata.name: required (or metadata.generateName)")
	}
	if msgs := validation.IsDNS1123Label(run.Name); len(msgs) > 0 {
		field := "metadata.name"
		if run.GenerateName != "" && strings.HasPrefix(run.Name, run.GenerateName) {
			field = "metadata.generateName" // the name was made from it
		}
		return fmt.Errorf("%s: %q: %s", field, run.Name, strings.Join(msgs, "; "))
	}
	return nil
}
