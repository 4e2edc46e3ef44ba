package local

import (
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Unused names the spec's fields that only a cluster acts on and that this spec sets: the
// local mode runs them without failing, and says it did not use them (on the progress
// output and in the Accepted condition), so nobody reads a local result as having
// exercised them.
func Unused(spec *benchv1.BenchmarkRunSpec) []string {
	var out []string
	if len(spec.ImagePullSecrets) > 0 {
		out = append(out, "spec.imagePullSecrets: not used in the local mode, which pulls no images")
	}
	return out
}

// acceptedMessage is the Accepted condition's message of a local run.
func acceptedMessage(spec *benchv1.BenchmarkRunSpec) string {
	msg := "validated with the CRD's schema and CEL rules; running locally"
	if unused := Unused(spec); len(unused) > 0 {
		msg += "; " + strings.Join(unused, "; ")
	}
	return msg
}
