package local

import (
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// A spec's pull secrets are accepted by the local mode, which says it did not use them;
// a spec without them gets the plain message.
func TestUnusedClusterFieldsAreNamed(t *testing.T) {
	spec := &benchv1.BenchmarkRunSpec{}
	if u := Unused(spec); len(u) != 0 {
		t.Fatalf("nothing set, yet %v", u)
	}
	if msg := acceptedMessage(spec); msg != "validated with the CRD's schema and CEL rules; running locally" {
		t.Fatalf("%q", msg)
	}
	spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "ghcr-creds"}}
	u := Unused(spec)
	if len(u) != 1 || !strings.HasPrefix(u[0], "spec.imagePullSecrets: not used in the local mode") {
		t.Fatalf("%v", u)
	}
	if msg := acceptedMessage(spec); !strings.HasSuffix(msg, "running locally; "+u[0]) {
		t.Fatalf("%q", msg)
	}
}
